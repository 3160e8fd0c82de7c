# rdmascope_write_if_changed(PATH CONTENT): writes CONTENT to PATH unless PATH
# holds exactly that already, so that generated sources keep their time stamp
# and their dependents do not rebuild needlessly. For cmake -P scripts.
function(rdmascope_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()
