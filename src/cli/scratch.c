/* cli/scratch.c: the private build folder of `serve` and `deploy`. It goes
 * in $TMPDIR (or /tmp); where that folder does not exist or cannot be
 * written — a FROM scratch container, an empty root — it goes in the site
 * folder instead, as a hidden `.sheaf-NAME-XXXXXX` that the command removes
 * when it ends, so the static binary serves and deploys anywhere it builds. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/buf.h"
#include "util/fs.h"

bool cli_scratch_dir(const char *name, const char *site, buf *out, diag_list *d)
{
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    buf_reset(out);
    buf_printf(out, "%s/sheaf-%s-XXXXXX", tmpdir, name);
    if (mkdtemp(out->data))
        return true;
    int e = errno;
    if (e == ENOENT || e == EACCES || e == EROFS || e == ENOTDIR) {
        buf_reset(out);
        buf_printf(out, "%s/.sheaf-%s-XXXXXX", site, name);
        if (mkdtemp(out->data))
            return true;
    }
    diag_error(d, NULL, 0, 0, "cannot create a build folder in %s (%s) nor in the site folder %s: %s",
               tmpdir, strerror(e), site, strerror(errno));
    return false;
}
