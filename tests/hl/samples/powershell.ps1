# PowerShell sample
param(
    [string]$Path = ".",
    [int]$Depth = 2
)

function Get-Size {
    [CmdletBinding()]
    param([Parameter(Mandatory)] [string]$Dir)
    <# block
       comment #>
    $total = (Get-ChildItem -Path $Dir -Recurse -File | Measure-Object -Property Length -Sum).Sum
    if ($total -gt 1GB) { Write-Host "Big: $($total / 1GB) GB" -ForegroundColor Red }
    elseif ($null -eq $total) { return 0 }
    return $total
}

$items = @(1, 2, 3) | ForEach-Object { $_ * 2 }
$hash = @{ Name = 'x'; Count = 0x1F }
try { Get-Size -Dir $Path } catch { Write-Error $_.Exception.Message }
