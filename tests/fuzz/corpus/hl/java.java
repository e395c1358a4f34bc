package org.example;

import java.util.*;
import java.util.function.Function;

/**
 * A generic box.
 * @param <T> the type
 */
@SuppressWarnings("unchecked")
public final class Box<T extends Comparable<T>> implements Iterable<T> {
    private static final long SERIAL = 1L;
    private final List<T> items = new ArrayList<>();

    public Box(T... values) {
        for (T v : values) {
            items.add(v);
        }
    }

    @Override
    public Iterator<T> iterator() {
        return items.iterator();
    }

    public <R> Box<R> map(Function<? super T, R> f) throws IllegalStateException {
        synchronized (this) {
            char c = 'x';
            double d = 3.14e-2d + 0x1F;
            String s = "text \"quoted\"";
            if (items.isEmpty() && c != '\n') {
                throw new IllegalStateException(s);
            }
            return null;
        }
    }

    interface Visitor { void visit(int x); }
    enum Kind { A, B }
}
