{-# LANGUAGE ScopedTypeVariables #-}
-- | ringbench-ghc: the GHC driver of ringbench (docs/driver-contract.md, version 3).
--
-- > ringbench-ghc [+RTS ... -RTS] [--variant=stock|handoff|handoff-forkon|tuned] describe
-- > ringbench-ghc [+RTS ... -RTS] [--variant=stock|handoff|handoff-forkon|tuned] run <workload> key=value ...
--
-- Processes are forkIO threads. stock: each owns a Chan (message passing); handoff: each owns an
-- MVar (a one-slot hand-off, the Benchmarks Game thread-ring idiom); handoff-forkon: handoff with
-- the ring's processes (and spawn's, pingpong's, trace's) started by forkOn numCapabilities
-- (capability 0 at any -N), as threadring.ghc does; tuned: stock with the RTS settings its manifest gives on the command line (README.md).
-- stdout carries JSON Lines only.
module Main (main) where

import Control.Concurrent (threadDelay)
import Control.Exception
import Control.Monad (forM_, when)
import Data.IORef
import Data.List (intercalate, isPrefixOf)
import GHC.RTS.Flags (GCFlags (..), getGCFlags)
import GHC.Stats (getRTSStats, getRTSStatsEnabled)
import System.Environment (getArgs)
import System.Exit (ExitCode (..))
import System.IO
import System.Info (fullCompilerVersion)
import System.Posix.Process (exitImmediately)
import Data.Version (showVersion)
import Contract
import Workloads

foreign import ccall unsafe "ringbench_install_hooks" installHooks :: IO ()

variants :: [String]
variants = ["stock", "handoff", "handoff-forkon", "tuned"]

usage :: String
usage = "usage: ringbench-ghc [--variant=" ++ intercalate "|" variants
        ++ "] describe | run <workload> key=value ..."

-- | The workloads `describe` lists; selective is known and refused (no selective receive).
workloads :: [String]
workloads = ["ring", "spawn", "pingpong", "fanin", "tree", "trace"]

selectiveReason :: String
selectiveReason =
  "GHC has no selective receive: a process's MVar or Chan gives up its oldest value and cannot be "
  ++ "scanned for one that matches; emulating it (a reply MVar per worker, or a side buffer) would "
  ++ "measure something else"

main :: IO ()
main = do
  installHooks
  hSetBuffering stdout (BlockBuffering Nothing)
  args <- getArgs
  outcome <- try (try (dispatch args))
  case outcome of
    Right (Right ()) -> flushOut
    Right (Left (DriverError kind msg)) -> failWith kind msg
    Left (e :: SomeException) -> case fromException e of
      Just HeapOverflow -> failWith "limit" "memory: the GHC heap overflowed (HeapOverflow); free memory or lower n"
      Just StackOverflow -> failWith "limit" "stack: a thread overflowed its stack (+RTS -K)"
      _ -> case fromException e of
        Just (ec :: ExitCode) -> flushOut >> throwIO ec
        Nothing -> hPutStrLn stderr (displayException e)
                   >> failWith "failure" (takeWhile (/= '\n') (displayException e))

failWith :: String -> String -> IO ()
failWith kind msg = do
  emit "error" [("kind", S kind), ("message", S msg)]
  flushOut
  exitImmediately (ExitFailure (if kind == "failure" then 1 else if kind == "limit" then 3 else 2))

dispatch :: [String] -> IO ()
dispatch args0 = do
  (variant, args) <- case args0 of
    (a : rest) | "--" `isPrefixOf` a ->
      if "--variant=" `isPrefixOf` a && drop 10 a `elem` variants
        then return (drop 10 a, rest)
        else die "bad_param" ("unknown option '" ++ a ++ "'; " ++ usage)
    _ -> return ("stock", args0)
  case args of
    ["describe"] -> describe variant
    ("describe" : _) -> die "bad_param" ("describe takes no arguments; " ++ usage)
    ("run" : workload : kvs) -> case workloadKeys workload of
      Nothing -> die "unknown_workload" ("unknown workload '" ++ workload ++ "' (this driver knows: "
                                         ++ intercalate ", " workloads ++ ")")
      Just keys -> do
        p <- parseParams workload keys kvs
        when (workload == "selective") $ die "unsupported" selectiveReason
        checkTuned variant
        run variant workload p
    ["run"] -> die "bad_param" ("run needs a workload; " ++ usage)
    [] -> die "bad_param" ("no verb given; " ++ usage)
    (verb : _) -> die "bad_param" ("unknown verb '" ++ verb ++ "'; " ++ usage)

describe :: String -> IO ()
describe variant = do
  collector <- collectorName
  emit "describe"
    [ ("contract", I 4), ("name", S "ghc"), ("runtime", S "GHC")
    , ("version", S (showVersion fullCompilerVersion)), ("workloads", L workloads)
    , ("features", L ["tokens", "continuous", "stats"]), ("variant", S variant)
    , ("clock", S clockName), ("collector", S collector) ]

-- | The tuned variant's RTS settings come on its command line (driver.toml): without them it would
-- be stock under another name.
checkTuned :: String -> IO ()
checkTuned variant = when (variant == "tuned") $ do
  f <- getGCFlags
  when (minAllocAreaSize f <= 256) $
    die "bad_param" "--variant=tuned runs with the RTS settings of driver.toml's [variants.tuned] (+RTS -A64m -H -qg)"

impl :: String -> Impl
impl "handoff" = handoff
impl "handoff-forkon" = handoffForkOn
impl _ = stock

run :: String -> String -> Params -> IO ()
run variant workload p = do
  let w = impl variant
      g = param p
  mt <- newMeter
  if workload == "ring" && g "sample_ms" > 0
    then sampling w mt p
    else do
      let wantStats = g "stats" == 1
      forM_ [1 - g "warmup" .. g "repeats"] $ \it -> do
        let measured = it >= 1
        start <- if wantStats && measured then statsNow else return Nothing
        count <- case workload of
          "ring" -> wRing w mt (g "n") (g "m") (g "tokens") (g "burst" == 1)
          "spawn" -> wSpawn w mt (g "n")
          "pingpong" -> wPingpong w mt (g "m")
          "fanin" -> wFanin w mt (g "n") (g "m")
          "tree" -> wTree w mt (g "n") (g "fanout")
          _ -> wTrace w mt (g "n") (g "m") measured
        let want = expectedCount workload p
        when (count /= want) $
          die "failure" (workload ++ ": verified count " ++ show count ++ " does not match the expected "
                         ++ show want)
        when measured $ do
          ph <- phasesOf mt
          mem <- firstMemory mt
          let keys = maybe [] (map fst) (workloadKeys workload)
              readyField = [("ready", I (toInteger (readyCount ph))) | workload /= "tree"]
          emit "result" $
            [("workload", S workload), ("iteration", I (toInteger it))]
            ++ [(k, I (toInteger (g k))) | k <- keys]
            ++ [("count", I count)] ++ readyField
            ++ [ ("setup_ns", I (setupNs ph)), ("run_ns", I (runNs ph))
               , ("setup_cpu_ns", I (setupCpu ph)), ("run_cpu_ns", I (runCpu ph))
               , ("setup_vcsw", I (setupVcsw ph)), ("setup_ivcsw", I (setupIvcsw ph))
               , ("run_vcsw", I (runVcsw ph)), ("run_ivcsw", I (runIvcsw ph)) ]
            ++ mem
          when wantStats $ do
            figures <- runtimeStats start ph
            emit "stats" ([("workload", S workload), ("iteration", I (toInteger it))] ++ figures)
          flushOut
  where
    statsNow = do
      enabled <- getRTSStatsEnabled
      if enabled then Just <$> getRTSStats else return Nothing

-- | Continuous mode (section 5): main sleeps to fixed deadlines (start + k * sample_ms, so that
-- lateness does not accumulate), reads p0's lap counter and prints a sample; after the last one
-- the process exits at once, without teardown.
sampling :: Impl -> Meter -> Params -> IO ()
sampling w mt p = do
  let g = param p
      n = g "n"
      every = toInteger (g "sample_ms") * 1000000
  laps <- newIORef 0
  inject <- wContinuous w mt n (g "tokens") (g "burst" == 1) laps
  t0 <- nowNs
  inject
  forM_ [1 .. g "samples"] $ \k -> do
    now <- nowNs
    let wait = t0 + toInteger k * every - now
    when (wait > 0) $ threadDelay (fromInteger (wait `div` 1000))
    l <- readIORef laps
    t <- nowNs
    emit "sample" [("seq", I (toInteger k)), ("elapsed_ns", I (t - t0)), ("count", I (toInteger (l * n)))]
    flushOut
  exitImmediately ExitSuccess
