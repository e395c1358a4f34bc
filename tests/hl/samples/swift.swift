import Foundation

/// A shape.
protocol Shape {
    var area: Double { get }
}

struct Circle: Shape {
    let r: Double
    var area: Double { .pi * r * r }
}

enum Direction: String, CaseIterable {
    case north, south
}

final class Store<T: Codable> {
    private var items: [T] = []
    @discardableResult
    func add(_ item: T) -> Int {
        items.append(item)
        return items.count
    }
}

func greet(name: String? = nil) async throws -> String {
    guard let name = name else { throw NSError(domain: "x", code: 1) }
    let n = 0x1F + 1_000
    return "Hello, \(name)! \(n)"
}

let shapes: [Shape] = [Circle(r: 2.0)]
for s in shapes where s.area > 1 { print(s.area) }
