# Warnings are errors in ctile's own code.
function(ctile_strict target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
endfunction()
