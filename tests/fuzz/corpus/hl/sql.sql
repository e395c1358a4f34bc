-- Top customers
CREATE TABLE IF NOT EXISTS customers (
    id INTEGER PRIMARY KEY,
    name VARCHAR(100) NOT NULL DEFAULT 'unknown',
    created TIMESTAMP
);

SELECT c.name, COUNT(*) AS orders, SUM(o.total) / 100.0 AS spent
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id
WHERE o.created >= DATE '2024-01-01' AND c.name LIKE 'A%'
GROUP BY c.name
HAVING COUNT(*) > 3
ORDER BY spent DESC
LIMIT 10;

/* block comment */
UPDATE customers SET name = "quoted" WHERE id IN (1, 2, 3);
INSERT INTO t VALUES (NULL, TRUE, `backtick`);
