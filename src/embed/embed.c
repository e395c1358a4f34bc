/* embed: lookup in the generated table of the default theme's files. */
#include "embed/embed.h"

#include <string.h>

const embed_file *embed_find(const char *path)
{
    for (size_t i = 0; i < embed_count; i++)
        if (strcmp(embed_files[i].path, path) == 0)
            return &embed_files[i];
    return NULL;
}
