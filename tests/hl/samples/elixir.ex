defmodule Shapes do
  @moduledoc """
  Shapes and their areas.
  """
  @pi 3.14159

  defstruct [:kind, r: 1.0]

  @doc "The area."
  def area(%__MODULE__{kind: :circle, r: r}), do: @pi * r * r
  def area(_), do: 0

  def run(items) when is_list(items) do
    items
    |> Enum.map(&area/1)
    |> Enum.filter(fn a -> a > 1.0 end)
    |> IO.inspect(label: "areas #{length(items)}")
  end
end

case Shapes.run([%Shapes{kind: :circle}]) do
  [] -> :empty
  [h | _] -> {:ok, h, ~r/ab+c/i, 0x1F}
end
