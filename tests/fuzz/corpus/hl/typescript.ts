import type { Request } from "express";

export interface User {
  id: number;
  name?: string;
  readonly tags: string[];
}

enum Color { Red = 1, Green, Blue }

type Maybe<T> = T | null | undefined;

@Component({ selector: "app-root" })
export class UserService<T extends User> implements Service {
  private cache = new Map<number, T>();
  constructor(private readonly http: HttpClient) {}

  public async get(id: number): Promise<Maybe<T>> {
    const hit = this.cache.get(id) as T;
    if (hit !== undefined) return hit;
    let n: number = 0b101 + 0o7 + 1_000;
    declare const x: any;
    return null;
  }
}

function assertNever(x: never): never {
  throw new Error(`Unexpected: ${x}`);
}
