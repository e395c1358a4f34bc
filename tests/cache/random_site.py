"""A small site with most of what a page can read of another, and random
edits of it: the shared part of tests/cache/random_edits.py (cached builds)
and tests/serve/random_edits.py (sheaf serve's fast rebuilds).

    import random_site as rs
    rs.init(site_folder, seed)   # writes the site
    what = rs.draw()             # one random edit, written; its description

The site: posts in two sections linking to each other's headings, citations
of a .bib, tags and categories, pagination, a shortcode reading a data file,
formulas, footnotes, a diagram, an image, figures with @fig- references,
alerts, aliases, drafts. The edits: bodies, titles, dates, tags, drafts,
slug, updated, summary and image, headings other posts link to, posts
added, deleted and renamed, templates, data, the .bib, site.yaml keys (the
title, paginate, search, taxonomies, related, citation_style,
numbered_sections, permalinks, Markdown options), files touched. Some
break the site (a link to a draft, a citation of an entry taken out); a
later edit mends it.
"""
import os
import random
import re

from common import png_bytes

THEME = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "themes", "default",
                     "templates")
rng = random.Random(1)
SITE = None

WORDS = ("gradient sparse allreduce ring tensor pipeline shard optimizer bandwidth latency "
         "switch fabric kernel cache model batch epoch quantized compressed network").split()
TAGS = ["ml", "networking", "gpu", "systems", "theory"]
CATS = ["notes", "reviews"]
BIB_KEYS = ["lian2017", "wang2023", "sergeev2018"]


def path(rel):
    return os.path.join(SITE, rel)


def write(rel, text):
    """rel's text, as editors save: a new file put in place by a rename
    (a server watching never reads half of it); nothing when rel holds
    that text already."""
    p = path(rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    if os.path.exists(p):
        with open(p) as f:
            if f.read() == text:
                return
    tmp = os.path.join(os.path.dirname(p), "." + os.path.basename(p) + ".tmp")
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, p)


def png(rel, w, h, shade):
    data = png_bytes(w, h, shade)
    os.makedirs(os.path.dirname(path(rel)), exist_ok=True)
    tmp = os.path.join(os.path.dirname(path(rel)), ".sq.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path(rel))


def words(n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


# ---- the site's state: what each post is made of ------------------------

class Post:
    def __init__(self, name, section="posts"):
        self.name = name  # file name, without .md
        self.section = section
        self.title = words(3).capitalize()
        self.date = "2024-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
        self.tags = rng.sample(TAGS, rng.randint(0, 2))
        self.cats = rng.sample(CATS, rng.randint(0, 1))
        self.draft = False
        self.description = None
        self.aliases = []
        self.headings = ["First part", "Second part"]
        self.paras = [words(12)]
        self.more = rng.random() < 0.5
        self.links = []  # (post name, heading index or None, kept when it is a draft, its text)
        self.cites = []
        self.extras = []  # "math", "footnote", "shortcode", "diagram", "image"
        self.note = words(4)  # the footnote's text
        self.fm = {}  # slug:, updated:, summary:, image:

    def rel(self):
        return "content/%s/%s.md" % (self.section, self.name)

    def text(self):
        fm = ["title: %s" % self.title, "date: %s" % self.date]
        if self.tags:
            fm.append("tags: [%s]" % ", ".join(self.tags))
        if self.cats:
            fm.append("categories: [%s]" % ", ".join(self.cats))
        if self.draft:
            fm.append("draft: true")
        if self.description:
            fm.append("description: %s" % self.description)
        if self.aliases:
            fm.append("aliases: [%s]" % ", ".join(self.aliases))
        for k in ("slug", "updated", "summary", "image"):
            if self.fm.get(k):
                fm.append("%s: %s" % (k, self.fm[k]))
        body = [self.paras[0]]
        if self.more:
            body.append("<!--more-->")
        for i, h in enumerate(self.headings):
            body.append("## %s" % h)
            body.append(self.paras[(i + 1) % len(self.paras)])
        for target, anchor, to_draft, label in self.links:
            t = state.get(target)
            if t is None or (t.draft and not to_draft):  # (a link to a draft: an error)
                continue
            rel = os.path.relpath(path(t.rel()), os.path.dirname(path(self.rel())))
            frag = ""
            if anchor is not None and anchor < len(t.headings):
                frag = "#" + re.sub(r"[^a-z0-9]+", "-", t.headings[anchor].lower()).strip("-")
            body.append("See [%s](%s%s)." % (label, rel, frag))
        for k in self.cites:
            body.append("As shown [@%s]." % k)
        for x in self.extras:
            if x == "math":
                body.append("A formula $\\sum_i x_i^2$ and\n\n$$\\frac{a}{b}$$")
            elif x == "footnote":
                body.append("A claim.[^n]\n\n[^n]: %s" % self.note)
            elif x == "shortcode":
                body.append("The motto: {{< motto >}}.")
            elif x == "diagram":
                body.append("```dot\ndigraph { a -> b; b -> c }\n```")
            elif x == "figure":
                rel = os.path.relpath(path("content/img/sq.png"), os.path.dirname(path(self.rel())))
                body.append("![A square figure](%s){#fig-sq}\n\nAs @fig-sq shows." % rel)
            elif x == "alert":
                body.append("> [!NOTE]\n> %s" % self.note)
            elif x == "image":
                rel = os.path.relpath(path("content/img/sq.png"), os.path.dirname(path(self.rel())))
                body.append("![a square](%s)" % rel)
        return "---\n%s\n---\n%s\n" % ("\n".join(fm), "\n\n".join(body))

    def save(self):
        write(self.rel(), self.text())


state = {}  # name → Post
counter = [0]


def new_post(section="posts"):
    counter[0] += 1
    p = Post("p%d" % counter[0], section)
    state[p.name] = p
    p.save()
    return p


def posts(section=None):
    return [p for p in state.values() if section is None or p.section == section]


def site_yaml():
    c = site_conf
    write("site.yaml", "title: %s\nbase_url: https://example.org/\nbibliography: refs.bib\n"
          "search: %s\npaginate: %d\ntaxonomies: [%s]\nrelated: %d\ncitation_style: %s\n"
          "numbered_sections: %s\n%s%s"
          % (c["title"], c["search"], c["paginate"], c["taxonomies"], c["related"], c["style"],
             c["numbered"], c["permalinks"], c["extra"]))


def bib(years):
    write("refs.bib", "".join(
        "@article{%s, author = {Author, A. and Other, B.}, title = {On %s}, year = {%d}}\n"
        % (k, k, years[k]) for k in BIB_KEYS if k in years))


bib_years = {k: 2017 + i for i, k in enumerate(BIB_KEYS)}
site_conf = {"title": "Random", "paginate": 3, "extra": "", "search": "true", "taxonomies": "tags, categories",
             "related": 5, "style": "author-year", "numbered": "false", "permalinks": ""}


# ---- the edits --------------------------------------------------------------

def pick():
    return rng.choice(posts()) if state else new_post()


def e_body():
    p = pick()
    p.paras.append(words(rng.randint(3, 20)))
    return "body of %s" % p.name


def e_link():
    p, t = pick(), pick()
    if t is p:
        return None
    p.links.append((t.name, rng.choice([None, 0, 1]), rng.random() < 0.2, words(2)))
    return "%s links to %s" % (p.name, t.name)


def e_unlink():
    p = pick()
    if not p.links:
        return None
    p.links.pop(rng.randrange(len(p.links)))
    return "a link of %s removed" % p.name


def e_heading():
    p = pick()
    i = rng.randrange(len(p.headings))
    p.headings[i] = words(2).capitalize()
    return "heading %d of %s renamed" % (i, p.name)


def e_title():
    p = pick()
    p.title = words(3).capitalize()
    return "title of %s" % p.name


def e_date():
    p = pick()
    p.date = "2024-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
    return "date of %s" % p.name


def e_tags():
    p = pick()
    p.tags = rng.sample(TAGS, rng.randint(0, 3))
    if rng.random() < 0.3:
        p.cats = rng.sample(CATS, rng.randint(0, 2))
    return "tags of %s" % p.name


def e_draft():
    drafts = [p for p in posts() if p.draft]
    p = rng.choice(drafts) if drafts and rng.random() < 0.6 else pick()
    p.draft = not p.draft
    return "draft of %s: %s" % (p.name, p.draft)


def e_description():
    p = pick()
    p.description = None if p.description else words(5)
    return "description of %s" % p.name


def e_front():
    p = pick()
    k = rng.choice(["slug", "updated", "summary", "image"])
    if p.fm.get(k):
        del p.fm[k]
    elif k == "slug":
        p.fm[k] = "-".join(words(2).split())
    elif k == "updated":
        p.fm[k] = "2025-%02d-%02d" % (rng.randint(1, 12), rng.randint(1, 28))
    elif k == "summary":
        p.fm[k] = words(6)
    else:
        p.fm[k] = "/img/sq.png"
    return "%s of %s: %s" % (k, p.name, p.fm.get(k))


def e_more():
    p = pick()
    p.more = not p.more
    return "more marker of %s" % p.name


def e_alias():
    p = pick()
    if p.aliases and rng.random() < 0.5:
        p.aliases = []
    else:
        p.aliases = ["/old/%s-%d/" % (p.name, rng.randint(1, 3))]
    return "aliases of %s" % p.name


def e_cite():
    p = pick()
    if p.cites and rng.random() < 0.4:
        p.cites.pop()
    else:
        p.cites.append(rng.choice(BIB_KEYS))
    return "citations of %s" % p.name


def e_extra():
    p = pick()
    x = rng.choice(["math", "footnote", "shortcode", "diagram", "image", "figure", "alert"])
    if x in p.extras:
        p.extras.remove(x)
    else:
        p.extras.append(x)
    return "%s in %s toggled" % (x, p.name)


def e_add():
    p = new_post(rng.choice(["posts", "posts", "notes"]))
    return "added %s (%s)" % (p.name, p.section)


def e_delete():
    if len(state) < 3:
        return None
    p = pick()
    os.remove(path(p.rel()))
    del state[p.name]
    return "deleted %s" % p.name


def e_rename():
    p = pick()
    old = path(p.rel())
    counter[0] += 1
    del state[p.name]
    p.name = "p%d" % counter[0]
    state[p.name] = p
    os.rename(old, path(p.rel()))
    return "renamed to %s" % p.name


def e_template():
    choice = rng.choice(["post.html", "index.html", "tag.html"])
    rel = "templates/" + choice
    if os.path.exists(path(rel)) and rng.random() < 0.4:
        os.remove(path(rel))
        return "template %s removed" % choice
    with open(os.path.join(THEME, choice)) as f:
        write(rel, f.read() + "\n<!-- %s -->\n" % words(2))
    return "template %s written" % choice


def e_data():
    write("data/info.yaml", "motto: %s\n" % words(3))
    return "data edited"


def e_bib():
    k = rng.choice(BIB_KEYS)
    if len(bib_years) < len(BIB_KEYS):  # the entry taken out last time, back
        k = next(x for x in BIB_KEYS if x not in bib_years)
        bib_years[k] = rng.randint(2000, 2024)
    elif rng.random() < 0.3:
        del bib_years[k]  # a page citing it breaks the build
    else:
        bib_years[k] = rng.randint(2000, 2024)
    bib(bib_years)
    return "bib: %s" % k


def e_site():
    k = rng.choice(list(site_conf))
    choices = {
        "title": lambda: words(2).capitalize(),
        "paginate": lambda: rng.randint(2, 5),
        "extra": lambda: rng.choice(["", "params:\n  motto: %s\n" % words(2), "markdown:\n  smart: false\n",
                                     "markdown:\n  heading_anchors: false\n", "links: warn\n"]),
        "search": lambda: rng.choice(["true", "false"]),
        "taxonomies": lambda: rng.choice(["tags, categories", "tags", "categories, tags"]),
        "related": lambda: rng.randint(1, 5),
        "style": lambda: rng.choice(["author-year", "numeric", "apa", "ieee"]),
        "numbered": lambda: rng.choice(["true", "false"]),
        "permalinks": lambda: rng.choice(["", "permalinks:\n  posts: /:year/:slug/\n",
                                          "permalinks:\n  notes: /n/:slug/\n"]),
    }
    site_conf[k] = choices[k]()
    site_yaml()
    return "site.yaml %s: %s" % (k, str(site_conf[k]).strip())


def e_touch():
    p = pick()
    t = os.stat(path(p.rel())).st_mtime + rng.choice([-100, 100])
    os.utime(path(p.rel()), (t, t))
    return "touched %s" % p.name


def e_image():
    png("content/img/sq.png", rng.randint(2, 8), rng.randint(2, 8), rng.randint(0, 255))
    return "image replaced"


def e_section_index():
    write("content/notes/_index.md", "---\ntitle: %s\n---\n%s\n" % (words(2).capitalize(), words(8)))
    return "notes/_index.md edited"


def e_nothing():
    return "nothing"


EDITS = [(e_body, 8), (e_link, 4), (e_unlink, 2), (e_heading, 3), (e_title, 3), (e_date, 3),
         (e_tags, 3), (e_draft, 2), (e_description, 1), (e_front, 3), (e_more, 1), (e_alias, 1), (e_cite, 2),
         (e_extra, 3), (e_add, 2), (e_delete, 1), (e_rename, 1), (e_template, 1), (e_data, 1),
         (e_bib, 1), (e_site, 3), (e_touch, 1), (e_image, 1), (e_section_index, 1), (e_nothing, 1)]


def draw():
    total = sum(w for _, w in EDITS)
    while True:
        x = rng.uniform(0, total)
        for fn, w in EDITS:
            x -= w
            if x <= 0:
                break
        what = fn()
        if what:
            if fn not in (e_add, e_delete, e_rename, e_template, e_data, e_bib, e_site, e_touch,
                          e_image, e_section_index, e_nothing):
                for p in state.values():  # the post edited is saved (all: cheap, same bytes)
                    p.save()
            return what




def init(site, seed):
    """Writes the starting site into the folder site, drawing from seed."""
    global SITE
    SITE = site
    rng.seed(seed)
    site_yaml()
    bib(bib_years)
    write("data/info.yaml", "motto: a first motto\n")
    write("templates/shortcodes/motto.html", "<em>{{ site.data.info.motto }}</em>")
    png("content/img/sq.png", 4, 4, 128)
    e_section_index()
    write("content/about.md", "---\ntitle: About\n---\n%s\n" % words(10))
    for _ in range(8):
        new_post()
    new_post("notes")
