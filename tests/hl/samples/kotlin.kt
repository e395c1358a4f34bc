package org.example

import kotlinx.coroutines.*

/** A point. */
data class Point(val x: Double, val y: Double = 0.0) {
    operator fun plus(o: Point) = Point(x + o.x, y + o.y)
}

sealed class Shape {
    object Empty : Shape()
    class Circle(val r: Double) : Shape()
}

fun area(s: Shape): Double = when (s) {
    is Shape.Circle -> Math.PI * s.r * s.r
    Shape.Empty -> 0.0
}

suspend fun main() = coroutineScope {
    val items = listOf(1, 2, 3).map { it * 2 }.filter { it > 2 }
    val name: String? = null
    println("Items: $items, ${name ?: "none"} ${0x1F + 1_000L}")
    launch { delay(100L) }
    for (i in 0 until 10 step 2) { if (i == 4) break }
    val raw = """raw
        string"""
    'c'
}
