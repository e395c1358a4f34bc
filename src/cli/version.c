/* cli/version.c: what `sheaf --version` prints — sheaf's version, the git
 * commit it was built from, and the versions of the JavaScript libraries
 * compiled into it, so a bug report names exactly what ran. */
#include "cli/cli.h"

#include "version_info.h" /* SHEAF_GIT_COMMIT, made at build time */

#ifndef SHEAF_VERSION
#define SHEAF_VERSION "0.0.0"
#endif
#ifndef SHEAF_KATEX_VERSION
#define SHEAF_KATEX_VERSION "unknown"
#endif
#ifndef SHEAF_HLJS_VERSION
#define SHEAF_HLJS_VERSION "unknown"
#endif
#ifndef SHEAF_TARGET
#define SHEAF_TARGET "unknown"
#endif
#ifndef SHEAF_LINKAGE
#define SHEAF_LINKAGE "dynamic"
#endif

void cli_print_version(FILE *f)
{
    fprintf(f, "sheaf %s (commit %s, %s, %s)\n", SHEAF_VERSION, SHEAF_GIT_COMMIT, SHEAF_TARGET,
            SHEAF_LINKAGE);
    fprintf(f, "KaTeX %s, highlight.js %s\n", SHEAF_KATEX_VERSION, SHEAF_HLJS_VERSION);
}
