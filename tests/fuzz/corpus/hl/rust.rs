//! Crate docs.
use std::collections::HashMap;
use std::fmt::{self, Display};

/// A point in the plane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point<T> {
    pub x: T,
    pub y: T,
}

impl<T: Display> fmt::Display for Point<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub enum Shape {
    Circle { r: f64 },
    Square(f64),
}

fn area(s: &Shape) -> f64 {
    match *s {
        Shape::Circle { r } => std::f64::consts::PI * r * r,
        Shape::Square(a) => a * a,
    }
}

async fn run<'a>(items: &'a [u8]) -> Result<usize, Box<dyn std::error::Error>> {
    let mut counts: HashMap<u8, usize> = HashMap::new();
    for &b in items.iter() {
        *counts.entry(b).or_insert(0) += 1;
    }
    let raw = r#"raw "string""#;
    let c = 'x';
    let n = 0xff_u32 + 1_000i64 as u32 + 2.5e3 as u32;
    if let Some(v) = counts.get(&b'a') {
        println!("{} {} {}", v, raw, c);
    }
    unsafe { std::ptr::null::<u8>(); }
    Ok(n as usize)
}

macro_rules! square {
    ($x:expr) => { $x * $x };
}
