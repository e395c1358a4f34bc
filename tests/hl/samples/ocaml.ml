(* OCaml sample *)
module StringMap = Map.Make (String)

type shape =
  | Circle of float
  | Rect of { w : float; h : float }

let area = function
  | Circle r -> Float.pi *. r *. r
  | Rect { w; h } -> w *. h

let rec sum = function [] -> 0 | x :: xs -> x + sum xs

let () =
  let xs = [ 1; 2; 3 ] in
  let m = StringMap.add "a" 1 StringMap.empty in
  Printf.printf "%d %f %s\n" (sum xs) (area (Circle 2.0)) "done";
  if StringMap.mem "a" m then print_endline "yes" else ignore 'c';
  let n = 0x1F + 1_000 in
  ignore n
