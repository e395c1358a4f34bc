# Ruby sample
require 'json'

module Shapes
  class Circle < Shape
    attr_reader :r
    PI = 3.14159

    def initialize(r = 1.0)
      @r = r
      @@count ||= 0
    end

    def area
      PI * @r ** 2
    end

    def to_s = "Circle(#{@r})"
  end
end

items = %w[a b c].map { |x| x.upcase }
hash = { name: "x", 'k' => :sym, n: 0x1f }
puts items.each_with_index.select { |s, i| i.even? }.inspect if items.any?
text = <<~HEREDOC
  heredoc #{hash[:name]}
HEREDOC
case hash[:n]
when 1..10 then puts "small"
else raise ArgumentError, "big"
end
/ab+c/i =~ "abbc" rescue nil
