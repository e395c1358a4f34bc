# Jupyter notebooks (issue 30): real public notebooks (tests/nb/notebooks,
# ORIGIN.md there) built as posts — every cell in order, every image written
# with its bytes and size, every table — and the same against
# `jupyter nbconvert --to html`: the same cells, the same representation
# chosen for each output (slow: nbconvert takes 1–2 minutes for them all).
add_test(NAME nb/notebooks
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/nb/run.py $<TARGET_FILE:sheaf>)
add_test(NAME nb/nbconvert
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/nb/run.py $<TARGET_FILE:sheaf> --nbconvert)
set_tests_properties(nb/notebooks nb/nbconvert PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77)
sheaf_label_slow(nb/nbconvert)
set_property(TEST nb/nbconvert APPEND PROPERTY LABELS no-asan)
