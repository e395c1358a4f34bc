/* hugo: importing a Hugo site (to come: the Jekyll importer lands first). */
#include "import/internal.h"

bool import_hugo_collect(imp *m)
{
    diag_error(m->d, m->o->src, 0, 0, "importing from Hugo is not available yet");
    return false;
}

import_page *import_hugo_ref(imp *m, const import_page *p, const char *path, size_t n)
{
    (void)m, (void)p, (void)path, (void)n;
    return NULL;
}
