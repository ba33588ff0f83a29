-- | The driver's hand-written concurrency primitives under concurrency, on two capabilities
-- (built with -with-rtsopts=-N2; `cabal test`, run by check.sh):
--
--  * the gate ('Gate'): many threads arrive at once, from both capabilities; main wakes once
--    every one has arrived, never earlier, and sees the full count;
--  * the countdown of finished tokens ('Countdown'): the same for the last of many finishers;
--  * the hand-off slot the handoff variants build their rings from (one MVar per process, a send a
--    'putMVar' into the successor's): rings with many tokens in flight, so puts block on full
--    slots, where every token must arrive exactly once after exactly its hops;
--  * the spawn workload's boundary (contract section 3), through the driver's own spawn of stock
--    and handoff: when main wakes, the gate has counted every process and they are blocked in their
--    first receive; a process that sleeps 200 ms before it arrives makes setup_ns at least as long.
--
-- Every round repeats with a fresh structure and random sizes; a lost wake-up shows as a timeout.
-- The random rounds are a quarter as many by default as with RINGBENCH_SLOW=1 (`make test-slow`).
module Main (main) where

import Control.Concurrent
import Control.Monad (forM, forM_, replicateM_, unless, when)
import Data.IORef
import Data.List (nub, sort)
import GHC.Conc (BlockReason (..), ThreadStatus (..), threadStatus)
import System.Environment (lookupEnv)
import System.Exit (exitFailure)
import System.IO
import System.Timeout (timeout)
import Contract
import Workloads

-- | A small deterministic generator (no random package among GHC's boot packages).
next :: IORef Int -> Int -> IO Int
next g bound = do
  s <- readIORef g
  let s' = (s * 6364136223846793005 + 1442695040888963407) `mod` (2 ^ (62 :: Int))
  writeIORef g s'
  return (1 + (s' `div` 65536) `mod` bound)

-- | Fails the run with a message unless the action finishes within 10 s.
within :: String -> IO a -> IO a
within what act = timeout 10000000 act >>= maybe (failWith (what ++ ": timed out (a lost wake-up)")) return

failWith :: String -> IO a
failWith msg = hPutStrLn stderr ("primitives: " ++ msg) >> exitFailure

check :: Bool -> String -> IO ()
check ok msg = unless ok (failWith msg)

-- | The gate: n threads (forkOn alternating capabilities) arrive; one is held back until main has
-- been seen waiting for at least 20 ms, so an early wake-up would be caught.
gateRound :: Int -> IO ()
gateRound n = do
  g <- newGate n
  hold <- newEmptyMVar
  forM_ [1 .. n - 1] $ \i -> forkOn i (when (even i) yield >> arrive g)
  _ <- forkOn 0 (takeMVar hold >> arrive g)
  early <- timeout 20000 (waitGate g)
  check (null early) ("gate n=" ++ show n ++ ": main woke before the last arrival")
  putMVar hold ()
  -- waitGate took nothing yet (the timeout interrupted it before the MVar was full)
  k <- within ("gate n=" ++ show n) (waitGate g)
  check (k == n) ("gate n=" ++ show n ++ ": main saw " ++ show k)

countdownRound :: Int -> IO ()
countdownRound n = do
  c <- newCountdown n
  forM_ [1 .. n] $ \i -> forkOn i (when (odd i) yield >> countDown c)
  within ("countdown n=" ++ show n) (waitCountdown c)

-- | A ring of n one-slot MVars with t tokens (t <= n, start slots spread), each travelling h hops;
-- every arrival is recorded as (token, hops).
handoffRound :: Int -> Int -> Int -> IO ()
handoffRound n t h = do
  slots <- forM [1 .. n] (const newEmptyMVar)
  arrived <- newMVar []
  done <- newCountdown t
  let process mine succ' = do
        (tok, left) <- takeMVar mine
        if left == 0
          then modifyMVar_ arrived (return . (tok :)) >> countDown done
          else putMVar succ' (tok, left - 1 :: Int)
        process mine succ'
  ts <- forM (zip3 [0 :: Int ..] slots (drop 1 slots ++ take 1 slots)) $ \(i, mine, succ') ->
    forkOn i (process mine succ')
  forM_ [0 .. t - 1] $ \tok -> forkIO (putMVar (slots !! ((tok * n) `div` t)) (tok, h))
  within ("handoff n=" ++ show n ++ " t=" ++ show t) (waitCountdown done)
  got <- readMVar arrived
  check (sort got == [0 .. t - 1]) ("handoff n=" ++ show n ++ " t=" ++ show t ++ ": arrivals " ++ show (sort got))
  mapM_ killThread ts

-- | How long the slow process of 'spawnRound' sleeps before it arrives at the gate.
slowUs :: Int
slowUs = 200000

-- | One spawn phase of n processes (the workload's own code), started by a fork that records each
-- process thread and makes the one started slow-th (if any) sleep slowUs before it runs, and so
-- before it arrives. As the phase's clocks stop: the gate's count (readyCount) must be n and the
-- processes blocked on their box's MVar (a Chan's readMVar shows as one too), all but at most one
-- per capability (a process may be between its arrival and its receive; a sleeping thread also
-- shows as blocked on an MVar, the timer manager's); with a slow process, setup_ns >= slowUs.
-- A gate that woke main one arrival early, or counted a process before it got there, ends the
-- phase while the slow process sleeps.
spawnRound :: String -> (Fork -> Impl) -> Int -> Maybe Int -> IO ()
spawnRound name impl n slow = do
  started <- newIORef (0 :: Int)
  tids <- newIORef []
  let fork act = do
        k <- atomicModifyIORef' started (\i -> (i + 1, i))
        t <- forkIO (when (Just k == slow) (threadDelay slowUs) >> act)
        modifyIORef' tids (t :)
        return t
  mt <- newMeter
  blocked <- newIORef (-1)
  atSpawnEnd mt $ readIORef tids >>= mapM threadStatus >>= writeIORef blocked . length . filter inReceive
  count <- within (what ++ ": spawn") (wSpawn (impl fork) mt n)
  p <- phasesOf mt
  b <- readIORef blocked
  caps <- getNumCapabilities
  check (readyCount p == n && count == toInteger n && b >= n - caps
         && maybe True (const (setupNs p >= toInteger slowUs * 1000)) slow)
        (what ++ ": set-up " ++ show (setupNs p) ++ " ns, " ++ show (readyCount p)
         ++ " arrived when main woke, " ++ show b ++ " blocked in their first receive")
  where
    what = name ++ " spawn n=" ++ show n ++ maybe "" (\k -> ", process " ++ show k ++ " slow") slow
    inReceive (ThreadBlocked r) = r == BlockedOnMVar
    inReceive _ = False

main :: IO ()
main = do
  caps <- getNumCapabilities
  check (caps >= 2) ("needs two capabilities (+RTS -N2), has " ++ show caps)
  slow <- (== Just "1") <$> lookupEnv "RINGBENCH_SLOW"
  let rounds k = if slow then 4 * k else k
  g <- newIORef 42
  replicateM_ (rounds 50) $ next g 2000 >>= gateRound
  replicateM_ (rounds 50) $ next g 2000 >>= countdownRound
  replicateM_ (rounds 25) $ do
    n <- next g 300
    t <- next g n
    h <- next g 500
    handoffRound n t h
  forM_ [("stock", stockWith), ("handoff", handoffWith)] $ \(name, impl) -> do
    replicateM_ (rounds 12) $ next g 3000 >>= \n -> spawnRound name impl n Nothing
    forM_ [1, 2, 1000] $ \n -> forM_ (nub [0, n - 1]) (spawnRound name impl n . Just)
  putStrLn ("primitives: the gate, the countdown, the MVar hand-off ring and the spawn boundary passed"
            ++ " (two capabilities)")
