#include <stdio.h>
#include "local.h"
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* A block comment. FIXME: something */
typedef struct point {
    double x, y;
} point;

static const char *names[] = {"alpha", "beta\n", NULL};

int main(int argc, char **argv)
{
    unsigned long n = 0x1fUL + 017 + 1e-3f;
    char c = '\'';
    for (int i = 0; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        n += strlen(argv[i]);
    }
    switch (n) {
    case 0: return 1;
    default: break;
    }
    printf("%lu items, %s\n", n, names[0]);
    return n > 0 ? 0 : 1; // done
}
