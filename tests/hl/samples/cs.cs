using System;
using System.Collections.Generic;
using System.Linq;

namespace Example
{
    /// <summary>A point.</summary>
    public record Point(double X, double Y);

    [Serializable]
    public sealed class Store<T> : IDisposable where T : class
    {
        private readonly List<T> _items = new();
        public int Count => _items.Count;

        public async Task<int> AddAsync(T item)
        {
            await Task.Delay(10);
            _items.Add(item ?? throw new ArgumentNullException(nameof(item)));
            return _items.Count;
        }

        public void Dispose() { }
    }

    static class Program
    {
        static void Main(string[] args)
        {
            var xs = Enumerable.Range(0, 10).Where(x => x % 2 == 0).ToList();
            string s = $"Count: {xs.Count} {@"verbatim \n"}";
            char c = 'x';
            #region stuff
            foreach (var x in xs) Console.WriteLine(x + 0x1F);
            #endregion
        }
    }
}
