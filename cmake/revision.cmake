# Writes ${OUT} with the source revision (git commit, "-dirty" when the tree has changes), only
# when it changed, so that `upswitch --version` and every summary.json name the exact model that
# produced them. Run at every build by the upswitch_revision target.
execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD OUTPUT_VARIABLE rev
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
else()
  execute_process(COMMAND git -C "${SRC}" status --porcelain --untracked-files=no -- systemc traffic CMakeLists.txt
                  OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT dirty STREQUAL "")
    set(rev "${rev}-dirty")
  endif()
endif()
set(text "#pragma once\n#define UPSWITCH_REVISION \"${rev}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
