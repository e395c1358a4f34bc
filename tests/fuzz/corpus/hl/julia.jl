# Julia sample
module Shapes

export area, Circle

abstract type Shape end

struct Circle{T<:Real} <: Shape
    r::T
end

"""
    area(s)

The area of `s`.
"""
area(c::Circle) = π * c.r^2

function sumsq(xs::Vector{Float64})::Float64
    total = 0.0
    for x in xs
        total += x^2
    end
    return total
end

macro twice(ex)
    quote
        $(esc(ex)); $(esc(ex))
    end
end

const N = 0x10 + 1e-3 + 1_000
s = "interp $(N) and $N"
c = 'c'
#= block
   comment =#
m = [1 2; 3 4]'
@twice println(s, c, m, nothing, true)

end
