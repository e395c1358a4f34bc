/* site: the site model — configuration, the pages loaded from content/,
 * their cross-post links, and the collections (posts, tags, archive,
 * pagination) the templates see. Built by render/build.c in stages; after
 * site_model_values() nothing in it changes, so pages render on any thread.
 *
 * Paths: `src` fields are relative to the site folder ("content/posts/a.md");
 * `path` fields are output paths relative to the output root, without the
 * base path ("posts/a/" for a page, "posts/img/x.png" for a file); URLs
 * handed to templates carry the base path ("/notes/posts/a/"). */
#ifndef SHEAF_SITE_H
#define SHEAF_SITE_H

#include "site/config.h"
#include "site/page.h"
#include "site/model.h"
#include "site/media.h"
#include "site/generated.h"
#include "site/load.h"
#include "site/paths.h"
#include "site/sources.h"
#include "site/links.h"
#include "site/spill.h"
#include "site/bulk.h"
#include "site/i18n.h"
#include "site/cite.h"
#include "site/pool.h"

#endif
