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
 * the cells' attachments are decoded from base64 once, into the caller's
 * arena, and written beside the page by whoever places files.
 *
 * The JSON is read in one pass with no recursion (nb.c): a base64 image is
 * decoded straight from the file's text; nothing but the page text and the
 * decoded bytes is kept. JSON syntax errors are reported at the file's
 * line:col. Every generated line knows its cell and the cell's line
 * (`nb_place`), so a later message about the page can say
 * `cell 7 (line 3:5)`. */
#ifndef SHEAF_NB_H
#define SHEAF_NB_H

#include <stdbool.h>
#include <stddef.h>

#include "diag/diag.h"
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

/* A file the page needs beside it: an output's image or an attachment. */
typedef struct nb_file {
    const char *name;          /* "cell7-1.png", "cell3-att-diagram.png" */
    const unsigned char *data; /* decoded bytes, in the arena */
    size_t len;
    int width, height;         /* of a PNG or JPEG (0 when not known) */
} nb_file;

typedef struct nb_options {
    bool unsafe;         /* text/html outputs may be shown (markdown.unsafe) */
    const char *files;   /* how the body names the folder of the files, a
                            path relative to the page's source ("a.ipynb") */
} nb_options;

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
