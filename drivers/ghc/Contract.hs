-- | What is the contract rather than the idiom (docs/driver-contract.md, version 4): the verbs and
-- the one option, parameters and bounds, the records, the errors, the iteration loop, the clocks,
-- the one forced collection of the process, the memory rule and the gate. The workloads are in
-- Workloads.hs (written once over a Chan or an MVar) and Tree.hs. Nothing here runs inside a timed
-- phase except the clock reads that bound it.
module Contract
  ( -- * Records and errors
    Value (..), emit, emitHop, flushOut, DriverError (..), die
    -- * Parameters
  , Params, param, workloadKeys, parseParams
    -- * Phases, clocks and memory
  , Meter, newMeter, Phases (..), noPhases, phasesOf, atSpawnEnd
  , spawnBegins, spawnEnds, runBegins, runEnds, treeBegins, treeEnds
  , firstMemory, nowNs
    -- * The gate and the counter of finished tokens
  , Gate, newGate, arrive, waitGate
  , Countdown, newCountdown, countDown, waitCountdown
    -- * Runtime facts
  , collectorName, clockName, runtimeStats
  , placement, expectedCount
  ) where

import Control.Concurrent.MVar
import Control.Exception (Exception, throwIO)
import Control.Monad (join, unless, when)
import Data.Bits (shiftL)
import Data.Char (isDigit, ord)
import Data.IORef
import Data.List (intercalate)
import Data.Maybe (fromMaybe)
import qualified Data.Map.Strict as M
import GHC.Clock (getMonotonicTimeNSec)
import GHC.Environment (getFullArgs)
import GHC.RTS.Flags (GCFlags (..), getGCFlags)
import GHC.Stats
import Numeric (showHex)
import Data.Int (Int64)
import Foreign.Marshal.Array (allocaArray, peekArray)
import Foreign.Ptr (Ptr)
import System.CPUTime (getCPUTime)
import System.IO
import System.Mem (performMajorGC)
import Control.Concurrent (getNumCapabilities)

-- ---------------------------------------------------------------- records

-- | A JSON value of the records: integers, numbers, strings, lists of strings.
data Value = I !Integer | D !Double | S String | L [String]

-- | One record as one line, keys in the order given; written to stdout's buffer (flushOut writes).
emit :: String -> [(String, Value)] -> IO ()
emit typ kvs = putStr (record typ kvs)

record :: String -> [(String, Value)] -> String
record typ kvs = "{" ++ intercalate "," (map pair (("type", S typ) : kvs)) ++ "}\n"
  where
    pair (k, v) = jstr k ++ ":" ++ val v
    val (I i) = show i
    val (D d) = show d
    val (S s) = jstr s
    val (L ss) = "[" ++ intercalate "," (map jstr ss) ++ "]"

-- | A JSON string; every character outside printable ASCII escaped, so the line is ASCII whatever
-- the locale (arguments are decoded by the locale and may hold anything).
jstr :: String -> String
jstr s = '"' : concatMap esc s ++ "\""
  where
    esc '"' = "\\\""
    esc '\\' = "\\\\"
    esc c
      | c >= ' ' && c <= '~' = [c]
      | ord c < 0x10000 = u (ord c)
      | otherwise = let x = ord c - 0x10000
                    in u (0xD800 + x `div` 0x400) ++ u (0xDC00 + x `mod` 0x400)
    u x = "\\u" ++ replicate (4 - length h) '0' ++ h where h = showHex x ""

-- | A trace record, printed by the receiving process as the hop happens.
emitHop :: Int -> Int -> Int -> Int -> IO ()
emitHop hop n from to =
  emit "hop" [("hop", I (toInteger hop)), ("lap", I (toInteger ((hop - 1) `div` n + 1))),
              ("from", I (toInteger from)), ("to", I (toInteger to))]

flushOut :: IO ()
flushOut = hFlush stdout

-- | An error of the contract (section 4): its kind and message.
data DriverError = DriverError String String deriving Show

instance Exception DriverError

die :: String -> String -> IO a
die kind msg = throwIO (DriverError kind msg)

-- ---------------------------------------------------------------- parameters (sections 2 and 6)

type Params = M.Map String Int

param :: Params -> String -> Int
param p k = M.findWithDefault 0 k p

-- | Each workload's keys with (low, high, default); Nothing as default: required.
workloadKeys :: String -> Maybe [(String, (Int, Int, Maybe Int))]
workloadKeys w = case w of
  "ring" -> Just [n, m, ("tokens", (1, maxN, Just 1)), ("burst", (0, 1, Just 0))]
  "spawn" -> Just [n]
  "pingpong" -> Just [m]
  "fanin" -> Just [n, m]
  "selective" -> Just [n, m, ("reverse", (0, 1, Just 0))]
  "tree" -> Just [n, ("fanout", (2, 1000, Just 10))]
  "trace" -> Just [("n", (1, 100, Nothing)), ("m", (1, 100, Nothing))]
  _ -> Nothing
  where
    n = ("n", (1, maxN, Nothing))
    m = ("m", (1, 1000000000, Nothing))

maxN :: Int
maxN = 100000000

commonKeys :: [(String, (Int, Int, Maybe Int))]
commonKeys =
  [ ("repeats", (1, 1000000, Just 1)), ("warmup", (0, 1000000, Just 0)), ("cores", (1, 1024, Just 0))
  , ("sample_ms", (0, 86400000, Just 0)), ("samples", (1, 1000000, Just 3)), ("stats", (0, 1, Just 0)) ]

boundText :: String -> (Int, Int) -> String
boundText k (0, 1) = k ++ " must be 0 or 1"
boundText k (lo, hi) = k ++ " must be an integer in " ++ show lo ++ ".." ++ show hi

-- | key=value arguments to the workload's keys and the common keys, defaults filled in.
parseParams :: String -> [(String, (Int, Int, Maybe Int))] -> [String] -> IO Params
parseParams workload keys args = do
  let specs = keys ++ commonKeys
  given <- go specs M.empty args
  let continuous = workload == "ring" && M.findWithDefault 0 "sample_ms" given > 0
  p <- M.fromList <$> mapM (fill given continuous) specs
  cross p
  return p
  where
    go _ acc [] = return acc
    go specs acc (a : rest) = case break (== '=') a of
      (k, '=' : v) -> case lookup k specs of
        Nothing -> die "bad_param" ("unknown key '" ++ k ++ "' for workload " ++ workload
                                    ++ " (known: " ++ intercalate ", " (map fst specs) ++ ")")
        Just (lo, hi, _)
          | M.member k acc -> die "bad_param" ("key " ++ k ++ " given twice")
          | null v || not (all isAsciiDigit v) ->
              die "bad_param" (boundText k (lo, hi) ++ ", got '" ++ v ++ "'")
          | otherwise -> do
              let x = if length v > 12 then toInteger hi + 1 else read v :: Integer
              when (x < toInteger lo || x > toInteger hi) $
                die "bad_param" (boundText k (lo, hi) ++ ", got '" ++ v ++ "'")
              go specs (M.insert k (fromInteger x) acc) rest
      _ -> die "bad_param" ("argument '" ++ a ++ "' is not key=value")
    isAsciiDigit c = isDigit c && c <= '9'
    fill given continuous (k, (lo, _, dflt)) = case (M.lookup k given, dflt) of
      (Just v, _) -> return (k, v)
      (Nothing, Just d) -> return (k, d)
      (Nothing, Nothing)
        | continuous && k == "m" -> return (k, lo) -- ignored in continuous mode
        | otherwise -> die "bad_param" ("missing required key " ++ k ++ " for workload " ++ workload)
    cross p = do
      let g = param p
          limit = 1 `shiftL` 62 :: Integer
      when (workload == "ring") $ do
        when (g "tokens" > g "n") $
          die "bad_param" ("tokens must be an integer in 1..n (" ++ show (g "n") ++ "), got '"
                           ++ show (g "tokens") ++ "'")
        when (g "sample_ms" == 0 && product (map (toInteger . g) ["n", "m", "tokens"]) >= limit) $
          die "bad_param" "n*m*tokens must be < 2^62"
      when (workload `elem` ["fanin", "selective"] && toInteger (g "n") * toInteger (g "m") >= limit) $
        die "bad_param" "n*m must be < 2^62"
      when (workload == "tree") $ do
        let f = g "fanout"
            powers = takeWhile (<= g "n") (iterate (* f) 1)
        unless (last powers == g "n") $
          die "bad_param" ("tree's n (leaves) must be a power of the fanout " ++ show f ++ ", got "
                           ++ show (g "n") ++ " (the nearest valid sizes are " ++ show (last powers)
                           ++ " and " ++ show (last powers * f) ++ ")")
      when (workload /= "ring" && g "sample_ms" > 0) $
        die "bad_param" ("sample_ms > 0 (continuous mode) applies only to workload ring, not " ++ workload)

-- | Where the ring's tokens are injected: token j at p(j*n div tokens), or all at p0 (burst).
placement :: Int -> Int -> Bool -> [Int]
placement n tokens burst
  | burst = replicate tokens 0
  | otherwise = [fromInteger (toInteger j * toInteger n `div` toInteger tokens) | j <- [0 .. tokens - 1]]

expectedCount :: String -> Params -> Integer
expectedCount w p = case w of
  "ring" -> g "n" * g "m" * g "tokens"
  "spawn" -> g "n"
  "pingpong" -> g "m"
  "tree" -> g "n" * (g "n" - 1) `div` 2
  _ -> g "n" * g "m"
  where g = toInteger . param p

-- ---------------------------------------------------------------- clocks

clockName :: String
clockName = "GHC.Clock.getMonotonicTimeNSec (CLOCK_MONOTONIC); CPU: System.CPUTime.getCPUTime "
            ++ "(CLOCK_PROCESS_CPUTIME_ID, 1 ns)"

nowNs :: IO Integer
nowNs = toInteger <$> getMonotonicTimeNSec

cpuNs :: IO Integer
cpuNs = (`div` 1000) <$> getCPUTime

foreign import ccall unsafe "ringbench_ctx_switches" c_ctxSwitches :: Ptr Int64 -> IO ()

-- | (voluntary, involuntary) context switches of the whole process so far: getrusage(RUSAGE_SELF)
-- through rusage.c.
ctxSwitches :: IO (Integer, Integer)
ctxSwitches = allocaArray 2 $ \buf -> do
  c_ctxSwitches buf
  vs <- peekArray 2 buf
  case vs of
    [v, iv] -> return (toInteger v, toInteger iv)
    _ -> return (0, 0)

-- ---------------------------------------------------------------- memory (section 3)

-- | Fields of /proc/self/status in bytes (VmRSS, VmHWM).
procStatus :: IO (M.Map String Integer)
procStatus = withFile "/proc/self/status" ReadMode $ \h -> do
  text <- hGetContents h
  let kv = M.fromList [ (init k, read v * 1024) | l <- lines text, (k : v : _) <- [words l]
                      , k `elem` ["VmRSS:", "VmHWM:"] ]
  M.size kv `seq` return kv

resetPeak :: IO ()
resetPeak = writeFile "/proc/self/clear_refs" "5"

-- ---------------------------------------------------------------- phases

-- | One iteration's timings and the process's first-spawn memory.
data Phases = Phases { setupNs, setupCpu, runNs, runCpu :: !Integer
                     , setupVcsw, setupIvcsw, runVcsw, runIvcsw :: !Integer -- context switches
                     , readyCount :: !Int, spawnLive :: !Integer }

noPhases :: Phases
noPhases = Phases 0 0 0 0 0 0 0 0 0 0

-- | What one phase measured: wall ns, CPU ns, voluntary and involuntary context switches.
data Span = Span !Integer !Integer !Integer !Integer

data Meter = Meter
  { phases :: IORef Phases
  , marks :: IORef Span               -- the readings at the start of the current phase
  , before :: IORef Integer            -- rss before the first spawn (or tree)
  , memory :: IORef (Maybe [(String, Value)])
  , firstLive :: IORef Integer         -- live bytes after the process's one forced collection
  , spawnEnd :: IORef (IO ())          -- run as a spawn phase ends (a test's look; 'atSpawnEnd')
  }

newMeter :: IO Meter
newMeter = Meter <$> newIORef noPhases <*> newIORef (Span 0 0 0 0) <*> newIORef 0 <*> newIORef Nothing
                 <*> newIORef 0 <*> newIORef (return ())

-- | Set by a test: an action run as each spawn phase ends, just after its clocks stop (untimed),
-- the instant the phase's boundary describes.
atSpawnEnd :: Meter -> IO () -> IO ()
atSpawnEnd = writeIORef . spawnEnd

phasesOf :: Meter -> IO Phases
phasesOf = readIORef . phases

firstMemory :: Meter -> IO [(String, Value)]
firstMemory mt = fromMaybe [] <$> readIORef (memory mt)

-- | A phase starts: the context switches, the CPU clock, then the wall clock; it ends in the
-- reverse order, so each reading stays outside the intervals read after it.
mark :: Meter -> IO ()
mark mt = do
  (v, iv) <- ctxSwitches
  c <- cpuNs
  t <- nowNs
  writeIORef (marks mt) (Span t c v iv)

elapsed :: Meter -> IO Span
elapsed mt = do
  t <- nowNs
  c <- cpuNs
  (v, iv) <- ctxSwitches
  Span t0 c0 v0 iv0 <- readIORef (marks mt)
  return (Span (t - t0) (c - c0) (v - v0) (iv - iv0))

rememberBefore :: Meter -> IO ()
rememberBefore mt = do
  known <- readIORef (memory mt)
  case known of
    Nothing -> procStatus >>= writeIORef (before mt) . M.findWithDefault 0 "VmRSS"
    Just _ -> return ()

-- | On the first spawn phase (or tree) of the process only: its one forced collection
-- (performMajorGC, untimed), the live bytes it leaves, then rss_after. Later iterations force no
-- collection: the next timed phase would pay to regrow what it freed.
rememberAfter :: Meter -> [(String, Value)] -> IO ()
rememberAfter mt extra = do
  known <- readIORef (memory mt)
  case known of
    Nothing -> do
      performMajorGC
      liveBytes >>= writeIORef (firstLive mt)
      st <- procStatus
      b <- readIORef (before mt)
      writeIORef (memory mt) (Just ([("rss_before", I b), ("rss_after", I (M.findWithDefault 0 "VmRSS" st))]
                                    ++ extra))
    Just _ -> return ()

-- | The spawn phase begins: the first spawn's rss_before, then the clocks.
spawnBegins :: Meter -> IO ()
spawnBegins mt = writeIORef (phases mt) noPhases >> rememberBefore mt >> mark mt

-- | The spawn phase ends once every process has arrived at the gate: the clocks stop; then,
-- untimed, on the first spawn only, the collection and rss_after ('rememberAfter'). Every
-- iteration's spawn_live_bytes is the first spawn's.
spawnEnds :: Meter -> Int -> IO ()
spawnEnds mt r = do
  Span t c v iv <- elapsed mt
  join (readIORef (spawnEnd mt))
  rememberAfter mt []
  live <- readIORef (firstLive mt)
  modifyIORef' (phases mt) (\p -> p { setupNs = t, setupCpu = c, setupVcsw = v, setupIvcsw = iv
                                     , readyCount = r, spawnLive = live })

runBegins :: Meter -> IO ()
runBegins = mark

runEnds :: Meter -> IO ()
runEnds mt = do
  Span t c v iv <- elapsed mt
  modifyIORef' (phases mt) (\p -> p { runNs = t, runCpu = c, runVcsw = v, runIvcsw = iv })

-- | The tree's one timed phase begins: on the first tree rss_before and the peak mark reset.
treeBegins :: Meter -> IO ()
treeBegins mt = do
  writeIORef (phases mt) noPhases
  known <- readIORef (memory mt)
  case known of
    Nothing -> rememberBefore mt >> resetPeak
    Just _ -> return ()
  mark mt

-- | The tree's phase ends: the peak (VmHWM) just after it, then (first tree only) the
-- collection and rss_after.
treeEnds :: Meter -> IO ()
treeEnds mt = do
  runEnds mt
  peak <- M.findWithDefault 0 "VmHWM" <$> procStatus
  rememberAfter mt [("rss_peak", I peak)]

liveBytes :: IO Integer
liveBytes = do
  enabled <- getRTSStatsEnabled
  if enabled then toInteger . gcdetails_live_bytes . gc <$> getRTSStats else return 0

-- ---------------------------------------------------------------- the gate

-- | How the spawn phase ends (section 3): every process calls 'arrive' immediately before its first
-- blocking receive; the one whose arrival completes the count fills an MVar main waits on. One
-- atomic increment per process, nothing per hop.
data Gate = Gate !(IORef Int) !Int !(MVar ())

newGate :: Int -> IO Gate
newGate want = Gate <$> newIORef 0 <*> pure want <*> newEmptyMVar

arrive :: Gate -> IO ()
arrive (Gate ref want allIn) = do
  k <- atomicModifyIORef' ref (\c -> (c + 1, c + 1))
  when (k == want) $ putMVar allIn ()

waitGate :: Gate -> IO Int
waitGate (Gate ref _ allIn) = takeMVar allIn >> readIORef ref

-- | Tokens still circulating: a process that finishes one counts down without ever blocking (so a
-- finishing process never waits on main); the last one wakes main.
data Countdown = Countdown !(IORef Int) !(MVar ())

newCountdown :: Int -> IO Countdown
newCountdown k = Countdown <$> newIORef k <*> newEmptyMVar

countDown :: Countdown -> IO ()
countDown (Countdown ref done) = do
  left <- atomicModifyIORef' ref (\c -> (c - 1, c - 1))
  when (left == 0) $ putMVar done ()

waitCountdown :: Countdown -> IO ()
waitCountdown (Countdown _ done) = takeMVar done

-- ---------------------------------------------------------------- runtime facts

-- | The collector of this process by the RTS's own name (--copying-gc: "the generational copying
-- garbage collector", the default). The non-moving collector is not in base's GCFlags: it is read
-- from the RTS options on the command line (GHCRTS, which --clean-env removes, is not read).
collectorName :: IO String
collectorName = do
  f <- getGCFlags
  args <- getFullArgs
  let nonmoving = any (`elem` ["--nonmoving-gc", "-xn"]) args
  return $ if nonmoving then "nonmoving mark-sweep (oldest generation)"
           else if generations f == 1 then "copying two-space"
           else if compact f then "generational, compacting oldest generation"
           else if sweep f then "generational, mark-sweep oldest generation"
           else "generational copying"

-- | The stats record's figures: the RTS's own counters (GHC.Stats, needs +RTS -T), as deltas over
-- the iteration where they accumulate.
runtimeStats :: Maybe RTSStats -> Phases -> IO [(String, Value)]
runtimeStats start ph = do
  caps <- getNumCapabilities
  enabled <- getRTSStatsEnabled
  let base = [("capabilities", I (toInteger caps)), ("spawn_live_bytes", I (spawnLive ph))]
  if not enabled then return base else do
    s <- getRTSStats
    let d f = toInteger (f s) - maybe 0 (toInteger . f) start
        gd = gc s
    return $ base ++
      [ ("gcs", I (d gcs)), ("major_gcs", I (d major_gcs)), ("allocated_bytes", I (d allocated_bytes))
      , ("copied_bytes", I (d copied_bytes)), ("par_copied_bytes", I (d par_copied_bytes))
      , ("gc_cpu_ns", I (d gc_cpu_ns)), ("gc_elapsed_ns", I (d gc_elapsed_ns))
      , ("mutator_cpu_ns", I (d mutator_cpu_ns)), ("mutator_elapsed_ns", I (d mutator_elapsed_ns))
      , ("max_live_bytes", I (toInteger (max_live_bytes s)))
      , ("max_mem_in_use_bytes", I (toInteger (max_mem_in_use_bytes s)))
      , ("live_bytes", I (toInteger (gcdetails_live_bytes gd)))
      , ("mem_in_use_bytes", I (toInteger (gcdetails_mem_in_use_bytes gd))) ]
