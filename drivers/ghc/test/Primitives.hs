-- | The driver's hand-written concurrency primitives under concurrency, on two capabilities
-- (built with -with-rtsopts=-N2; `cabal test`, run by check.sh):
--
--  * the gate ('Gate'): many threads arrive at once, from both capabilities; main wakes once
--    every one has arrived, never earlier, and sees the full count;
--  * the countdown of finished tokens ('Countdown'): the same for the last of many finishers;
--  * the hand-off slot the handoff variants build their rings from (one MVar per process, a send a
--    'putMVar' into the successor's): rings with many tokens in flight, so puts block on full
--    slots, where every token must arrive exactly once after exactly its hops.
--
-- Every round repeats with a fresh structure and random sizes; a lost wake-up shows as a timeout.
module Main (main) where

import Control.Concurrent
import Control.Monad (forM, forM_, replicateM_, unless, when)
import Data.IORef
import Data.List (sort)
import System.Exit (exitFailure)
import System.IO
import System.Timeout (timeout)
import Contract

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

main :: IO ()
main = do
  caps <- getNumCapabilities
  check (caps >= 2) ("needs two capabilities (+RTS -N2), has " ++ show caps)
  g <- newIORef 42
  replicateM_ 200 $ next g 2000 >>= gateRound
  replicateM_ 200 $ next g 2000 >>= countdownRound
  replicateM_ 100 $ do
    n <- next g 300
    t <- next g n
    h <- next g 500
    handoffRound n t h
  putStrLn "primitives: the gate, the countdown and the MVar hand-off ring passed (two capabilities)"
