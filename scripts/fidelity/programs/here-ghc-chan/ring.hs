-- A plain Chan ring (written here for ringbench's fidelity comparisons): the Benchmarks Game
-- thread-ring shape with base's Chan in place of the MVar. N forkIO threads, each reading its own
-- Chan and writing v-1 to its successor's; main injects N*M and waits for the thread that reads 1.
-- Run: ring N M +RTS -N<cores> -RTS; prints the number of the last thread.
import Control.Concurrent
import Control.Monad (foldM)
import System.Environment (getArgs)

thread :: MVar Int -> Int -> Chan Int -> Chan Int -> IO ()
thread ret i inbox next = go
  where
    go = do
      v <- readChan inbox
      if v > 1 then writeChan next (v - 1) >> go else putMVar ret i

main :: IO ()
main = do
  [n, m] <- map read <$> getArgs
  ret <- newEmptyMVar
  first <- newChan
  let new inbox i = do
        next <- newChan
        _ <- forkIO (thread ret i inbox next)
        return next
  lastBox <- foldM new first [1 .. n - 1]
  _ <- forkIO (thread ret n lastBox first)
  writeChan first (n * m)
  takeMVar ret >>= print
