/* held: which pages a build leaves out — drafts, scheduled (future) and
 * expired pages — by the build's clock, and when that changes next. */
#include <stdint.h>

#include "site/load.h"
#include "site/load_private.h"

site_held site_page_held(const site *s, const page *p)
{
    if (p->draft && !s->drafts)
        return SITE_DRAFT;
    if (p->is_index)
        return SITE_SHOWN; /* a section's title and intro: no date of its own */
    if (p->has_date && p->date.t > s->now && !s->future)
        return SITE_SCHEDULED;
    if (p->has_expiry && p->expiry.t <= s->now)
        return SITE_EXPIRED;
    return SITE_SHOWN;
}

/* Which pages are left out, by the build's clock (a kept parse may be from
 * an earlier run): counted for the summary, and the next time one comes
 * due or expires, for `sheaf serve`. */
void load_hold_pages(site *s)
{
    s->nscheduled = s->nexpired = 0;
    s->next_change = 0;
    for (size_t i = 0; i < s->npages; i++) {
        page *p = &s->pages[i];
        if (p->failed)
            continue;
        p->held = (unsigned char)site_page_held(s, p);
        p->excluded = p->held != SITE_SHOWN;
        int64_t when = 0;
        if (p->held == SITE_SCHEDULED) {
            s->nscheduled++;
            when = p->date.t;
        } else if (p->held == SITE_EXPIRED) {
            s->nexpired++;
        } else if (p->held == SITE_SHOWN && p->has_expiry) {
            when = p->expiry.t;
        }
        if (when > s->now && (!s->next_change || when < s->next_change))
            s->next_change = when;
    }
}
