/* fileid: who a file is on disk, as a later build may find it again
 * (device, inode, size, modification time to the nanosecond, and a hash
 * of its bytes), and its form in a binary record (util/binrec.h). One
 * struct for the output's files (render/output.h, output_file_id) and the
 * images' record (site/imgrec.h, site_img_out), which keeps them. */
#ifndef SHEAF_FILEID_H
#define SHEAF_FILEID_H

#include <stdint.h>

#include "util/binrec.h"

typedef struct file_id {
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns;
    uint64_t hash; /* of its bytes */
} file_id;

static inline void file_id_put(buf *b, const file_id *id)
{
    binrec_put_u(b, id->dev);
    binrec_put_u(b, id->ino);
    binrec_put_u(b, id->size);
    binrec_put_i(b, id->mtime_s);
    binrec_put_i(b, id->mtime_ns);
    binrec_put_w(b, id->hash);
}

static inline void file_id_get(binrec_reader *r, file_id *id)
{
    id->dev = binrec_get_u(r);
    id->ino = binrec_get_u(r);
    id->size = binrec_get_u(r);
    id->mtime_s = binrec_get_i(r);
    id->mtime_ns = binrec_get_i(r);
    id->hash = binrec_get_w(r);
}

#endif
