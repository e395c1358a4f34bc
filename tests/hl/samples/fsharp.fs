// F# sample
module Shapes

open System

type Shape =
    | Circle of radius: float
    | Rect of width: float * height: float

let area shape =
    match shape with
    | Circle r -> Math.PI * r * r
    | Rect (w, h) -> w * h

[<EntryPoint>]
let main argv =
    let shapes = [ Circle 2.0; Rect (1.0, 3.0) ]
    let total = shapes |> List.map area |> List.sum
    printfn "Total: %f %s" total "done"
    (* block comment *)
    let mutable n = 0x1F
    n <- n + 1
    0
