package main

import (
	"fmt"
	"strings"
)

// Shape is anything with an area.
type Shape interface {
	Area() float64
}

type Rect struct {
	W, H float64
}

func (r Rect) Area() float64 { return r.W * r.H }

func main() {
	shapes := []Shape{Rect{W: 2, H: 3.5}}
	ch := make(chan int, 10)
	go func() {
		defer close(ch)
		for i := 0; i < 3; i++ {
			ch <- i
		}
	}()
	for v := range ch {
		fmt.Printf("%d %v\n", v, shapes)
	}
	raw := `raw
string`
	var r rune = 'x'
	n := 0x1F + 1e3 + 077
	select {
	default:
		fmt.Println(strings.ToUpper(raw), r, n, nil, true)
	}
}
