{-# LANGUAGE ScopedTypeVariables #-}
module Main (main, Shape(..)) where

import qualified Data.Map as M
import Data.List (sortBy)

-- | A shape.
data Shape = Circle Double | Rect { w :: Double, h :: Double }
  deriving (Show, Eq)

class HasArea a where
  area :: a -> Double

instance HasArea Shape where
  area (Circle r) = pi * r ^ 2
  area (Rect w h) = w * h

newtype Wrapper a = Wrapper { unwrap :: a }

main :: IO ()
main = do
  let xs = [1, 2, 3] :: [Int]
      m = M.fromList (zip xs "abc")
  {- block
     comment -}
  print $ map (\x -> x * 2) xs
  case M.lookup 1 m of
    Just c -> putStrLn [c, '\n']
    Nothing -> return ()
  mapM_ print [x | x <- xs, x > 1, 0x1F > 3.5e2]
