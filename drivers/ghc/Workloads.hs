{-# LANGUAGE BangPatterns #-}
-- | The workloads, written once over the receiving end a process owns ('Mailbox'): an MVar (the
-- handoff variants, the Benchmarks Game thread-ring idiom) or a Chan (the stock variant, base's
-- unbounded channel). A process is a thread started by the variant's 'Fork' ('forkIO', or, in
-- handoff-forkon, 'forkOn' one capability); a send is 'send' on the receiver's box, a
-- receive 'recv' on one's own, both blocking the GHC way (the thread is parked on the MVar's
-- queue and woken by the next put). Every function is INLINE and instantiated once per box below
-- ('handoff', 'stock'), so a hop calls the MVar primops or Chan's code directly, with no class
-- dictionary in between. The tree is written per box (Tree.hs).
module Workloads (Impl (..), Fork, handoff, handoffForkOn, handoffWith, stock, stockWith) where

import Control.Concurrent (ThreadId, forkIO, forkOn)
import Control.Concurrent.Chan
import Control.Concurrent.MVar
import Control.Exception (SomeException, throwIO, try)
import Control.Monad (forM_, replicateM_, void, when)
import Data.IORef
import Data.Proxy (Proxy (..))
import GHC.Conc (numCapabilities)
import Contract
import Tree

-- | One variant's workloads.
data Impl = Impl
  { wRing :: Meter -> Int -> Int -> Int -> Bool -> IO Integer
  , wSpawn :: Meter -> Int -> IO Integer
  , wPingpong :: Meter -> Int -> IO Integer
  , wFanin :: Meter -> Int -> Int -> IO Integer
  , wTree :: Meter -> Int -> Int -> IO Integer
  , wTrace :: Meter -> Int -> Int -> Bool -> IO Integer
  , wContinuous :: Meter -> Int -> Int -> Bool -> IORef Int -> IO (IO ())
  }

-- | handoff: an MVar per process, every process a forkIO thread.
handoff :: Impl
handoff = handoffWith forkIO

-- | handoff-forkon: handoff with the processes of ring, spawn, pingpong, trace and the continuous
-- ring made by @forkOn numCapabilities@, as threadring.ghc does. forkOn takes the capability number
-- modulo the number of capabilities, and numCapabilities is the -N the program started with, so
-- that is capability 0 at every -N: those processes run on capability 0 and are never migrated.
handoffForkOn :: Impl
handoffForkOn = Impl (\m a b c d -> on (wRing h m a b c d)) (\m a -> on (wSpawn h m a))
                     (\m a -> on (wPingpong h m a)) (wFanin handoff)
                     (wTree handoff) (\m a b c -> on (wTrace h m a b c))
                     (\m a b c r -> on (wContinuous h m a b c r))
  where
    fork = forkOn numCapabilities
    h = handoffWith fork
    -- The workload's own thread (the spawner, the senders' parent) on the processes' capability too,
    -- so that nothing of the workload runs on another one. The tree and fanin keep handoff's forkIO
    -- (no program's idiom there): at -N2 many runnable threads locked to one capability make the
    -- RTS walk its whole run queue on every scheduling step, looking for threads to push to the
    -- idle one (a tree of 100,000 leaves: 424 s against 0.3 s; fanin of 10,000 senders: 10.5 s
    -- against 0.14 s; README.md).
    on act = do
      box <- newEmptyMVar
      _ <- fork (try act >>= putMVar box)
      takeMVar box >>= either (\e -> throwIO (e :: SomeException)) return

handoffWith :: Fork -> Impl
handoffWith fork = Impl (ring fork b) (spawn fork b) (pingpong fork b) (fanin fork b) treeMVar
                        (trace fork b) (continuous fork b)
  where b = Proxy :: Proxy MVar
{-# INLINE handoffWith #-}

-- | stock (and tuned): a Chan per process, every process a forkIO thread.
stock :: Impl
stock = stockWith forkIO

-- | stock's workloads with their processes started by fork (forkIO; a test's fork delays one).
stockWith :: Fork -> Impl
stockWith fork = Impl (ring fork b) (spawn fork b) (pingpong fork b) (fanin fork b) treeChan
                      (trace fork b) (continuous fork b)
  where b = Proxy :: Proxy Chan
{-# INLINE stockWith #-}

-- | How a workload starts each of its processes.
type Fork = IO () -> IO ThreadId

-- | A process's receiving end: new, send (to it), receive (from one's own).
class Mailbox b where
  newBox :: IO (b a)
  send :: b a -> a -> IO ()
  recv :: b a -> IO a

-- | One slot: a put blocks while it is full; a take blocks while it is empty.
instance Mailbox MVar where
  newBox = newEmptyMVar
  send = putMVar
  recv = takeMVar
  {-# INLINE newBox #-}
  {-# INLINE send #-}
  {-# INLINE recv #-}

-- | An unbounded FIFO: a write never blocks (beyond the write end's lock).
instance Mailbox Chan where
  newBox = newChan
  send = writeChan
  recv = readChan
  {-# INLINE newBox #-}
  {-# INLINE send #-}
  {-# INLINE recv #-}

-- | A new box of the variant's kind.
newBoxOf :: Mailbox b => Proxy b -> IO (b a)
newBoxOf _ = newBox
{-# INLINE newBoxOf #-}

-- ---------------------------------------------------------------- ring

-- | One ring process. A value v >= 1 is a token with v hops to go; v <= 0 is the stop message
-- carrying the sum -v of the receipt counts of the processes it has passed. Per hop: receive,
-- compare, count (an unboxed local), send v-1.
ringProc :: Mailbox b => Gate -> Countdown -> MVar Int -> Bool -> b Int -> b Int -> IO ()
ringProc gate done total isLast inbox next = arrive gate >> loop 0
  where
    loop :: Int -> IO ()
    loop !count = do
      v <- recv inbox
      if v > 1
        then send next (v - 1) >> loop (count + 1)
        else if v == 1
          then countDown done >> loop (count + 1)
          else let s = count - v in if isLast then putMVar total s else send next (negate s)
{-# INLINE ringProc #-}

-- | Make n boxes in ring order, starting process i with start i inbox next as its box is made (so a
-- token walks memory upwards). Returns p0's box and, for each index asked for, its box.
buildRing :: Mailbox b => Proxy b -> Int -> [Int] -> (Int -> b a -> b a -> IO ()) -> IO (b a, [b a])
buildRing _ n wanted start = do
  first <- newBox
  let go i inbox ws acc
        | i == n = return (reverse acc)
        | otherwise = do
            next <- if i == n - 1 then return first else newBox
            start i inbox next
            let (here, rest) = span (== i) ws
            go (i + 1) next rest (map (const inbox) here ++ acc)
  boxes <- go 0 first wanted []
  return (first, boxes)
{-# INLINE buildRing #-}

-- | ring (section 3): spawn, inject the tokens, wait for them to finish, then (untimed) the stop
-- message collects every process's receipt count.
ring :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> Int -> Int -> Bool -> IO Integer
ring fork box mt n m tokens burst = do
  gate <- newGate n
  done <- newCountdown tokens
  total <- newEmptyMVar
  spawnBegins mt
  (first, inject) <- buildRing box n (placement n tokens burst) $ \i inbox next ->
    void (fork (ringProc gate done total (i == n - 1) inbox next))
  waitGate gate >>= spawnEnds mt
  let v = n * m
  runBegins mt
  forM_ inject $ \b -> send b v
  waitCountdown done
  runEnds mt
  send first 0
  toInteger <$> takeMVar total
{-# INLINE ring #-}

-- | spawn (section 3): n ring processes that never get a token, so an idle process holds exactly
-- what a ring process holds (its box and its successor's); count = arrivals at the gate. Untimed, the
-- stop message releases them one after the other, each exiting as it passes it on.
spawn :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> IO Integer
spawn fork box mt n = do
  gate <- newGate n
  done <- newCountdown 1
  total <- newEmptyMVar
  spawnBegins mt
  (first, _) <- buildRing box n [] $ \i inbox next ->
    void (fork (ringProc gate done total (i == n - 1) inbox next))
  seen <- waitGate gate
  spawnEnds mt seen
  send first 0
  s <- takeMVar total
  when (s /= 0) $ die "failure" ("spawn: idle processes counted " ++ show s ++ " receipts")
  return (toInteger seen)
{-# INLINE spawn #-}

-- ---------------------------------------------------------------- pingpong

-- | pingpong (section 3): A sends to B, B answers A, m times; B counts the round trips.
pingpong :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> IO Integer
pingpong fork box mt m = do
  gate <- newGate 2
  finished <- newEmptyMVar
  result <- newEmptyMVar
  spawnBegins mt
  aBox <- newBoxOf box
  bBox <- newBoxOf box
  let playerA = do
        arrive gate
        _ <- recv aBox -- the start
        replicateM_ m (send bBox 1 >> recv aBox)
        putMVar finished ()
      playerB !count = do
        v <- recv bBox
        if v == 0 then putMVar result count else send aBox v >> playerB (count + 1)
  _ <- fork playerA
  _ <- fork (arrive gate >> playerB (0 :: Int))
  waitGate gate >>= spawnEnds mt
  runBegins mt
  send aBox (1 :: Int)
  takeMVar finished
  runEnds mt
  send bBox 0
  toInteger <$> takeMVar result
{-# INLINE pingpong #-}

-- ---------------------------------------------------------------- fanin

-- | fanin (section 3): n senders wait for the start signal (one MVar every sender reads: a put
-- wakes them all), then each sends m messages to the one receiver's box.
fanin :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> Int -> IO Integer
fanin fork box mt n m = do
  gate <- newGate (n + 1)
  start <- newEmptyMVar
  result <- newEmptyMVar
  let want = n * m
  spawnBegins mt
  inbox <- newBoxOf box
  let receiver !count !got
        | count == want = putMVar result (count, got)
        | otherwise = do
            v <- recv inbox
            receiver (count + 1) (got + v)
  _ <- fork (arrive gate >> receiver 0 (0 :: Int))
  forM_ [1 .. n] $ \_ -> fork $ do
    arrive gate
    readMVar start
    replicateM_ m (send inbox 1)
  waitGate gate >>= spawnEnds mt
  runBegins mt
  putMVar start ()
  (count, got) <- takeMVar result
  runEnds mt
  when (got /= count) $ die "failure" ("fanin: " ++ show count ++ " messages carried " ++ show got)
  return (toInteger count)
{-# INLINE fanin #-}

-- ---------------------------------------------------------------- trace

-- | A trace token: hops to go (<= 0: the stop carrying the sum) and its sender's index.
data Msg = Msg !Int !Int

-- | trace (section 3): the ring with one token that also carries its sender's index; the receiving
-- process prints each hop as it happens (only the token's holder runs, so in hop order).
trace :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> Int -> Bool -> IO Integer
trace fork box mt n m printing = do
  gate <- newGate n
  done <- newCountdown 1
  total <- newEmptyMVar
  let hops = n * m
      proc idx isLast inbox next = arrive gate >> loop (0 :: Int)
        where
          loop !count = do
            Msg v from <- recv inbox
            if v <= 0
              then let s = count - v
                   in if isLast then putMVar total s else send next (Msg (negate s) idx)
              else do
                when printing $ emitHop (hops - v + 1) n from idx >> flushOut
                if v == 1 then countDown done else send next (Msg (v - 1) idx)
                loop (count + 1)
  spawnBegins mt
  (first, _) <- buildRing box n [] $ \i inbox next -> void (fork (proc i (i == n - 1) inbox next))
  waitGate gate >>= spawnEnds mt
  runBegins mt
  send first (Msg hops (-1))
  waitCountdown done
  runEnds mt
  send first (Msg 0 (-1))
  toInteger <$> takeMVar total
{-# INLINE trace #-}

-- ---------------------------------------------------------------- continuous mode

-- | Continuous mode (section 5): the ring without a countdown; p0 adds one lap per token passage
-- (one atomic add per n hops). Returns the injection, which main runs after reading its clock.
continuous :: Mailbox b => Fork -> Proxy b -> Meter -> Int -> Int -> Bool -> IORef Int -> IO (IO ())
continuous fork box mt n tokens burst laps = do
  gate <- newGate n
  let passOn inbox next = arrive gate >> let go = recv inbox >>= send next >> go in go
      head0 inbox next = arrive gate >> go
        where go = do
                v <- recv inbox
                atomicModifyIORef' laps (\l -> (l + 1, ()))
                send next v
                go
  spawnBegins mt
  (_, inject) <- buildRing box n (placement n tokens burst) $ \i inbox next ->
    void (fork (if i == 0 then head0 inbox next else passOn inbox next))
  waitGate gate >>= spawnEnds mt
  return (forM_ inject $ \b -> send b (1 :: Int))
{-# INLINE continuous #-}
