-- The skynet repository's Haskell MVar tree (haskell/src/MVar.hs) as a program of its own: its
-- haskell/src/Main.hs runs every variant under criterion, which does not ship with GHC.
module Main (main) where

import qualified MVar (run)

main :: IO ()
main = MVar.run
