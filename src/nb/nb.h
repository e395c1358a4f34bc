/* nb: Jupyter notebooks (.ipynb, nbformat 4) → a Markdown page source.
 *
 * A notebook becomes the text of an ordinary page: YAML front matter (the
 * first raw cell's `---` block, as Quarto writes it, then the notebook's
 * metadata: title, authors, date, tags), then a body in which Markdown
 * cells are Markdown, code cells fenced code blocks in the kernel's
 * language, and the HTML around them (prompts, outputs) raw HTML blocks of
 * one line each. The rest of the pipeline reads that text as it reads a
 * `.md` file; `trusted` says which of its lines sheaf wrote itself, so
 * they are kept whatever `markdown.unsafe` says. Images of the outputs and
 * the cells' attachments are files beside the page (nb_file): read once
 * for their length, hash and size, decoded when they are written.
 *
 * The JSON is read in one pass with no recursion (nb.c): a base64 image is
 * decoded straight from the file's text, a piece at a time; nothing but
 * the page text is kept. JSON syntax errors are reported at the file's
 * line:col. Every generated line knows its cell and the cell's line
 * (`nb_place`), so a later message about the page can say
 * `cell 7 (line 3:5)`. */
#ifndef SHEAF_NB_H
#define SHEAF_NB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag/diag.h"
#include "img/img.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/str.h"

/* The file name ending of a notebook. */
#define NB_EXT ".ipynb"

/* Where a line of the generated text came from: cell (1-based; 0: the
 * notebook's metadata) and line of that cell's source (1-based; 0: a line
 * sheaf wrote for the cell, a prompt or an output). */
typedef struct nb_place {
    int cell, line;
} nb_place;

/* A file the page needs beside it: an output's image or an attachment.
 * Its bytes are not kept: nb_convert reads them once for their length,
 * hash and size, and they are decoded again, a piece at a time, when the
 * file is written (nb_file_decode_fd), so a notebook of 200 MB of images
 * never has them in memory. */
typedef struct nb_file {
    const char *name;          /* "cell7-1.png", "cell3-att-diagram.png" */
    size_t off, vlen;          /* the JSON value holding it: its offset and
                                  length in the notebook's bytes */
    bool base64;               /* its text is base64 of the bytes (else the
                                  bytes are its text: SVG) */
    size_t len;                /* its bytes */
    uint64_t hash;             /* their hash_bytes (util/hash.h) */
    int width, height;         /* of a PNG or JPEG (0 when not known) */
    img_info info;             /* its header, when width and height are known */
} nb_file;

/* The most bytes of the notebook read at once to decode a file, and of the
 * file given to put at once. */
#define NB_PIECE (64 * 1024)

typedef bool (*nb_put_fn)(void *ctx, const void *piece, size_t n);
enum {
    NB_DECODED,   /* every piece given to put */
    NB_STOPPED,   /* put returned false */
    NB_UNREADABLE, /* a read failed (errno) */
    NB_CHANGED,   /* the notebook does not hold what nb_convert read there */
};
/* Decodes file f of the notebook whose bytes are `json` (as nb_convert
 * was given them), piece by piece to put. Returns an NB_ value above. */
int nb_file_decode(str json, const nb_file *f, nb_put_fn put, void *ctx);
/* The same from the notebook's file open at fd, read with pread NB_PIECE
 * bytes at a time. */
int nb_file_decode_fd(int fd, const nb_file *f, nb_put_fn put, void *ctx);

typedef struct nb_options {
    bool unsafe;         /* text/html outputs may be shown (markdown.unsafe) */
    const char *files;   /* how the body names the folder of the files, a
                            path relative to the page's source ("a.ipynb") */
    /* Bytes [off, off + n) of the notebook the reader is done with for now
     * (it may read them again): a mapped file gives their pages back
     * (fs_map_drop), so a walk over 200 MB keeps a few MiB. NULL: none. */
    void (*drop)(void *ctx, size_t off, size_t n);
    void *drop_ctx;
} nb_options;

/* The largest notebook sheaf reads: a notebook is mapped, not read into
 * memory, and its images are decoded a piece at a time, so this bounds the
 * time a build may spend on one file, not the memory it takes. */
#define NB_MAX ((size_t)1 << 30)
#define NB_MAX_TEXT "1 GiB"

/* The reader gives back what it has read every NB_DROP_EVERY bytes. */
#define NB_DROP_EVERY ((size_t)4 << 20)

/* Output text longer than this (a stream, a traceback, text/plain) is cut,
 * with a line saying how much was left out: a loop printing for an hour
 * should not make a page of a gigabyte. */
#define NB_TEXT_MAX (256 * 1024)

typedef struct nb_doc {
    char *text;          /* the page source: front matter and body (heap,
                            the caller frees it) */
    size_t len;
    nb_place *lines;     /* lines[i]: line i + 1 of text (in the arena) */
    size_t nlines;
    unsigned char *trusted; /* trusted[i]: line i + 1 is sheaf's own HTML */
    nb_file *files;      /* in the arena */
    size_t nfiles;
    const char *language; /* the kernel's language, "" when not said */
} nb_doc;

/* Converts the notebook `json` (a whole .ipynb file) into out. Errors go to
 * d at `path`: JSON syntax at its line:col, an nbformat other than 4, a
 * value of the wrong kind; problems of a cell (bad base64, an output shown
 * as nothing) at the generated line of the cell, for nb_place_text. Returns
 * false when the notebook cannot be read (out is then empty); true
 * otherwise, even if a cell had an error (diag_error_count tells). */
bool nb_convert(str json, const char *path, const nb_options *opt, arena *a, nb_doc *out,
                diag_list *d);

/* Writes where line:col of doc's text is in the notebook, as messages show
 * it: "cell 7 (line 3:5)", "cell 7", "metadata". */
void nb_place_text(const nb_doc *doc, int line, int col, buf *out);

/* Base64 (RFC 4648, whitespace ignored, padding optional) → bytes appended
 * to out. Returns false at the first character that is not base64, with
 * *bad its offset. */
bool nb_base64_decode(const char *s, size_t n, buf *out, size_t *bad);


#endif
