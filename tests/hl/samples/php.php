<?php
declare(strict_types=1);

namespace App\Models;

use Illuminate\Support\Str;

/**
 * A user.
 */
final class User extends Model implements \JsonSerializable
{
    private const LIMIT = 10;
    protected array $fillable = ['name', 'email'];

    public function __construct(private string $name, ?int $age = null) {}

    public static function find(int $id): ?self
    {
        $rows = DB::select("SELECT * FROM users WHERE id = ?", [$id]);
        foreach ($rows as $i => $row) {
            echo "row {$i}: $row->name\n";
        }
        return $rows ? new self($rows[0]->name) : null;
    }
}

$x = fn($a) => $a * 2 + 0x1F;
$html = <<<HTML
<p>{$x(2)}</p>
HTML;
?>
<p>Outside <?= htmlspecialchars($name) ?></p>
