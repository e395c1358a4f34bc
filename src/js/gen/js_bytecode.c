/* js_bytecode: a build-time tool (not part of sheaf). Compiles a script
 * (katex.min.js, citeproc.js) with the Duktape sheaf links and writes the
 * compiled function (Duktape bytecode), which sheaf embeds next to the
 * source: loading bytecode starts an engine in a fraction of the time
 * compiling the source takes (docs/math.md and docs/citations.md have the
 * figures). src/js uses it only when the Duktape it runs with is the
 * version that wrote it. The script is compiled under the name of its file
 * (without folders), which its error messages show.
 *
 *   js_bytecode katex.min.js katex.bc */
#include <duktape.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: js_bytecode script.js out.bc\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    char *src = NULL;
    size_t n = 0, cap = 0, got;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 20;
            src = realloc(src, cap);
            if (!src)
                return 1;
        }
        got = fread(src + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    duk_context *ctx = duk_create_heap_default();
    duk_push_lstring(ctx, src, n);
    const char *name = strrchr(argv[1], '/');
    duk_push_string(ctx, name ? name + 1 : argv[1]);
    if (duk_pcompile(ctx, 0) != 0) {
        fprintf(stderr, "js_bytecode: %s: %s\n", argv[1], duk_safe_to_string(ctx, -1));
        return 1;
    }
    duk_dump_function(ctx);
    duk_size_t len;
    void *bc = duk_get_buffer(ctx, -1, &len);
    FILE *o = fopen(argv[2], "wb");
    if (!o || fwrite(bc, 1, len, o) != len || fclose(o) != 0) {
        perror(argv[2]);
        return 1;
    }
    duk_destroy_heap(ctx);
    free(src);
    return 0;
}
