import 'dart:async';
import 'package:http/http.dart' as http;

/// A shape.
abstract class Shape {
  double get area;
}

class Circle extends Shape {
  final double r;
  Circle(this.r);
  @override
  double get area => 3.14159 * r * r;
}

enum Color { red, green }

Future<void> main(List<String> args) async {
  final shapes = <Shape>[Circle(2.0)];
  var total = shapes.map((s) => s.area).fold(0.0, (a, b) => a + b);
  final res = await http.get(Uri.parse('https://example.org'));
  print('Total: $total, ${res.statusCode} ${0x1F}');
  for (var i = 0; i < 3; i++) {
    if (i.isEven) continue;
  }
  String? maybe;
  print(maybe ?? r'raw\n');
}
