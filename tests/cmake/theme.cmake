# The default theme against Python's Jinja2 (the reference for the template
# language) with a mock site: every template renders, the HTML balances, ids
# are unique, internal links resolve, the feed and sitemap are well-formed.
add_test(NAME theme/mock
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/theme/render_mock.py)
set_tests_properties(theme/mock PROPERTIES TIMEOUT 120 LABELS no-asan)

# The Nu HTML Checker over sheaf's own build of the example site and the mock
# posts: every page and the stylesheet, 0 errors. Skipped (needs.sh) without
# vnu-jar or Java.
add_test(NAME theme/vnu
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh vnu-jar java
                 sh ${CMAKE_CURRENT_SOURCE_DIR}/theme/vnu.sh $<TARGET_FILE:sheaf>)
set_tests_properties(theme/vnu PROPERTIES TIMEOUT 600 LABELS no-asan SKIP_RETURN_CODE 77)

# Accessibility in a real browser: axe-core over every kind of page of the
# example site and the mock posts, light and dark, 375 and 1280 px wide; wide
# tables scroll in their own box, which the keyboard reaches. Skipped (exit
# 77) when playwright-core, axe-core, Node.js or Chromium is not installed.
add_test(NAME theme/axe
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core axe-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/axe.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/theme-shots)
set_tests_properties(theme/axe PROPERTIES TIMEOUT 900 LABELS no-asan SKIP_RETURN_CODE 77)
sheaf_label_slow(theme/axe) # over a minute: every page kind, two themes, two widths

# Search in a real browser: on the example site "梯度压缩" and "gradient"
# find the right posts, highlighted, by keyboard; on 10,000 generated posts
# the index stays under 30% of the text and every query under 50 ms
# (theme/search-10k, slow: the example site's checks, then those).
# Skipped (exit 77) without playwright-core, Node.js or Chromium.
add_test(NAME theme/search
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/search.mjs $<TARGET_FILE:sheaf> --no-bench)
add_test(NAME theme/search-10k
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/search.mjs $<TARGET_FILE:sheaf>)
set_tests_properties(theme/search theme/search-10k PROPERTIES TIMEOUT 900 LABELS no-asan SKIP_RETURN_CODE 77)
sheaf_label_slow(theme/search-10k)

# Screenshots kept as artifacts (issue 33): an English post with math, code
# and citations, the post with Chinese notes, the home page and /papers/, at
# 375 and 1280 px, light and dark, whole pages, into the build folder's
# page-shots/ — to look at; the test checks each is drawn, no wider than
# the window, dark when dark. Skipped (exit 77) without playwright-core,
# Node.js or Chromium.
add_test(NAME theme/shots
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/shots.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/page-shots)
set_tests_properties(theme/shots PROPERTIES TIMEOUT 300 LABELS no-asan SKIP_RETURN_CODE 77)

# Lighthouse as a phone sees it (issue 33): the home page, a post with
# math, code and citations, and /papers/, served gzipped: performance ≥ 95
# (median of 3), accessibility 100, CLS 0, at most 80,000 bytes each. The
# reports go to the build folder's lighthouse/. Slow (nine runs), and a
# loaded machine slows Lighthouse's simulated CPU: run it on an idle one.
# Skipped (exit 77) without lighthouse, Node.js or Chromium.
# Run alone: Lighthouse scales the time the page's scripts take on this
# machine by its simulated phone CPU, so another test beside it (the full
# run's -j 2) can cost the blocking time and speed index of a page whose
# bytes did not change (/papers/ scored 89 and 90 there, 100 idle).
add_test(NAME theme/lighthouse
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "lighthouse" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/lighthouse.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/lighthouse)
set_tests_properties(theme/lighthouse PROPERTIES TIMEOUT 600 LABELS no-asan SKIP_RETURN_CODE 77 RUN_SERIAL TRUE)
sheaf_label_slow(theme/lighthouse)

# Formulas as TeX draws them: about forty formulas built by sheaf, drawn by
# Chromium and Firefox ESR at 375 and 1280 px, light and dark, against
# KaTeX's own HTML rendering: the letters' code points, table columns
# within 2 px, operator spacing in scripts within 1 px, equation numbers in
# view, no page widened. Screenshots in the build folder (math-shots).
# Skipped (exit 77) without playwright-core, Chromium, Firefox ESR or KaTeX.
add_test(NAME theme/math-visual
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" "node firefox-esr"
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/mathvis.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/math-shots)
set_tests_properties(theme/math-visual PROPERTIES TIMEOUT 600 LABELS "slow;no-asan" SKIP_RETURN_CODE 77)

# No doubled formula in any page, snippet or feed (issue 33): the example
# site and a note with formulas in its description, a citing sentence and
# next to a footnote mark; plain text is one rule (util/html.h).
add_test(NAME theme/plaintext
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/theme/plaintext.py $<TARGET_FILE:sheaf>)
set_tests_properties(theme/plaintext PROPERTIES TIMEOUT 120)

# The math font's parts are named twice in the default theme, in
# style.css's @font-face rules and in the map of the parts a page preloads
# (partials/math-fonts.html): they must agree range for range.
add_test(NAME theme/fontparts
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/theme/fontparts.py
                 ${CMAKE_SOURCE_DIR}/themes/default)

# The wide column (issue 33): at 1280 px a 100-character line of code and a
# six-column table fit without scrolling, short blocks keep the text's
# width, nothing reaches the table of contents; at 375 px nothing widens
# the page. Skipped (exit 77) without playwright-core or Chromium.
add_test(NAME theme/layout
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/layout.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/layout-shots)
set_tests_properties(theme/layout PROPERTIES TIMEOUT 120 LABELS no-asan SKIP_RETURN_CODE 77)

# Nothing moves once drawn (issue 33's CLS 0, made deterministic): the
# example site's pages served with a pause after the header and the
# scripts, style sheet and fonts late; no layout-shift entry on the home
# page, the math note, /papers/ and search, at 375 and 1280 px, light and
# dark. Skipped (exit 77) without playwright-core or Chromium.
add_test(NAME theme/shift
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/shift.mjs $<TARGET_FILE:sheaf>)
set_tests_properties(theme/shift PROPERTIES TIMEOUT 240 LABELS no-asan SKIP_RETURN_CODE 77)

# Reading aids (issue 33): on the example site a code block's copy button
# copies the code, focusing a citation or hovering a footnote mark shows the
# reference or the note in a popover that Escape closes, at 375 and 1280 px,
# light and dark; a page loads copy.js only where it has code and preview.js
# only where it has citations or footnotes, no script file elsewhere.
# Screenshots in the build folder (aids-shots). Skipped (exit 77) without
# playwright-core, Node.js or Chromium.
add_test(NAME theme/aids
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/needs.sh "playwright-core" node
                 node ${CMAKE_CURRENT_SOURCE_DIR}/theme/aids.mjs $<TARGET_FILE:sheaf> ${CMAKE_BINARY_DIR}/aids-shots)
set_tests_properties(theme/aids PROPERTIES TIMEOUT 120 LABELS no-asan SKIP_RETURN_CODE 77)
