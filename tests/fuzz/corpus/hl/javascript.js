	'use strict';
import { readFile } from 'fs/promises';
const re = /ab+c\/[a-z]/gi;

/**
 * Adds two numbers.
 * @param {number} a
 * @returns {number}
 */
export default function add(a, b = 1) {
  return a + b;
}

class Greeter extends Base {
  constructor(name) {
    super();
    this.name = name ?? 'world';
  }
  static create() { return new Greeter(); }
  get greeting() {
    return `Hello, ${this.name}! ${1 + 2}`;
  }
}

const arrow = async (x, ...rest) => {
  const data = await readFile('x.json', 'utf8');
  if (x > 0x10 && rest.length !== 0) {
    return JSON.parse(data)?.items || [];
  }
  for (let i = 0; i < 10; i++) console.log(i / 2, typeof i, null, undefined);
  const el = <div className="x">{x}</div>;
  return { a: 1, 'b': 2.5e3, [x]: true };
};
