package example

import scala.collection.mutable

/** Shapes. */
sealed trait Shape { def area: Double }
case class Circle(r: Double) extends Shape {
  override def area: Double = math.Pi * r * r
}

object Main extends App {
  val shapes = List(Circle(1.0), Circle(2.5))
  implicit val ord: Ordering[Circle] = Ordering.by(_.r)
  def total[T <: Shape](xs: Seq[T]): Double = xs.map(_.area).sum
  val m = mutable.Map[String, Int]("a" -> 1)
  shapes match {
    case Circle(r) :: _ if r > 0 => println(s"first radius $r and ${total(shapes)}")
    case _ => ()
  }
  lazy val n = 0x1F + 1e3
  for (i <- 1 to 3; j <- 1 until i) yield i * j
  val raw = """multi
    line"""
}
