{-# LANGUAGE BangPatterns #-}
-- | tree (contract section 3, the skynet benchmark), one per variant, each in the shape of the
-- skynet repository's Haskell program of its kind (haskell/src/MVar.hs, haskell/src/Chan.hs): a
-- process covering more than one leaf forks 'fanout' children and sums one message from each.
module Tree (treeMVar, treeChan) where

import Control.Concurrent (forkIO)
import Control.Concurrent.Chan
import Control.Concurrent.MVar
import Contract

-- | MVar: every child answers in an MVar of its own, made by its parent (the way async's `wait`
-- works); the parent takes them in child order, and a child that finished earlier has left its
-- value in its MVar and exited without waiting.
treeMVar :: Meter -> Int -> Int -> IO Integer
treeMVar mt n fanout = do
  root <- newEmptyMVar
  treeBegins mt
  _ <- forkIO (node 0 n root)
  s <- takeMVar root
  treeEnds mt
  return (toInteger s)
  where
    node :: Int -> Int -> MVar Int -> IO ()
    node !lo !size parent
      | size == 1 = putMVar parent lo
      | otherwise = do
          let sub = size `quot` fanout
              children !i acc
                | i == fanout = return acc
                | otherwise = do
                    box <- newEmptyMVar
                    _ <- forkIO (node (lo + i * sub) sub box)
                    children (i + 1) (box : acc)
              collect [] !acc = return acc
              collect (b : bs) !acc = takeMVar b >>= \v -> collect bs (acc + v)
          boxes <- children 0 []
          total <- collect boxes 0
          putMVar parent total

-- | Chan: a process makes one Chan, its mailbox; its children write their sums into it and it
-- reads 'fanout' of them in whatever order they come.
treeChan :: Meter -> Int -> Int -> IO Integer
treeChan mt n fanout = do
  root <- newChan
  treeBegins mt
  _ <- forkIO (node 0 n root)
  s <- readChan root
  treeEnds mt
  return (toInteger s)
  where
    node :: Int -> Int -> Chan Int -> IO ()
    node !lo !size parent
      | size == 1 = writeChan parent lo
      | otherwise = do
          inbox <- newChan
          let sub = size `quot` fanout
              children !i
                | i == fanout = return ()
                | otherwise = forkIO (node (lo + i * sub) sub inbox) >> children (i + 1)
              collect :: Int -> Int -> IO Int
              collect 0 !acc = return acc
              collect k !acc = readChan inbox >>= \v -> collect (k - 1) (acc + v)
          children (0 :: Int)
          total <- collect fanout 0
          writeChan parent total
