# The functions that register the MPI tests of test/mpi (its CMakeLists.txt
# holds the tables they read). Functions are global: test/openmp, test/run
# and test/llvm use ccc_mpi_launcher and ccc_mpi_program too.

set(harness ${PROJECT_SOURCE_DIR}/test/harness/killrestart.py)
set(mpi_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")

# The launcher of MPI, as a list ending in its rank-count option. Open MPI's
# mpirun passes only the variables named.
function(ccc_mpi_launcher out mpi)
  if(mpi STREQUAL "openmpi")
    set(${out} mpirun.openmpi --oversubscribe -x CCC_DIR -x CCC_INTERVAL
        -x CCC_VERBOSE -x CCC_PROTOCOL -x CCC_DISABLE -x CROSSING_LINE_KILL
        -x CCC_CHECK_PLACES -np PARENT_SCOPE)
  else()
    set(${out} mpiexec.mpich -n PARENT_SCOPE)
  endif()
endfunction()

# Builds SRC (C or Fortran, free or fixed form; a list of files is one
# program) for MPI as EXE with the ccc pass and layer, and as EXE.plain
# without either (the reference a program is without ccc), unless NOPLAIN
# follows.
function(ccc_mpi_program mpi exe src)
  set(targets ${exe} ${exe}.plain)
  if(ARGN STREQUAL "NOPLAIN")
    set(targets ${exe})
  endif()
  foreach(t ${targets})
    add_executable(${t} ${src})
    target_compile_options(${t} PRIVATE -O2)
    if(src MATCHES "\\.f(90)?$")
      target_compile_options(${t} PRIVATE
        -I${CCC_MPI_${mpi}_FORTRAN_MODULE_DIR})
      foreach(i ${CCC_MPI_${mpi}_INCLUDES})
        target_compile_options(${t} PRIVATE -I${i}) # for mpif.h
      endforeach()
      add_dependencies(${t} ccc_fortran_mpi_${mpi})
      set_target_properties(${t} PROPERTIES LINKER_LANGUAGE Fortran
        Fortran_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/${t}.mod)
      set(libs ${CCC_MPI_${mpi}_FORTRAN_LIBS} ${CCC_MPI_${mpi}_LIBS})
    else()
      target_include_directories(${t} PRIVATE ${CCC_MPI_${mpi}_INCLUDES})
      set(libs ${CCC_MPI_${mpi}_LIBS} m)
    endif()
    if(t STREQUAL exe)
      target_link_libraries(${t} PRIVATE ccc_mpi_${mpi} ccc_rt ${libs})
    else()
      target_link_libraries(${t} PRIVATE ccc_rt ${libs})
    endif()
  endforeach()
  ccc_use_pass(${exe})
endfunction()

# Puts the library of MPI's mpi_f08 module first on the link line of each
# target of ARGN: its procedures call mpi_send_ ..., which the layer (or, in
# the plain build, the MPI's Fortran library) defines.
function(ccc_mpi_link_f08_first mpi)
  foreach(t ${ARGN})
    get_target_property(l ${t} LINK_LIBRARIES)
    set_property(TARGET ${t} PROPERTY LINK_LIBRARIES ccc_mpi_f08_${mpi} ${l})
  endforeach()
endfunction()

# Kill/restart test NAME of EXE at NP ranks with ARGS (a string) under
# PROTOCOL; further arguments are harness options (--expect ...). The
# plain build's output is computed once for the rows of both protocols.
function(ccc_mpi_killrestart mpi name exe np args protocol trials)
  ccc_mpi_launcher(launch ${mpi})
  string(REPLACE ";" " " launch_words "${launch}")
  string(REPLACE " " ";" argv "${args}")
  set(test killrestart.mpi.${mpi}.${name}.np${np})
  add_test(NAME ${test}
    COMMAND ${Python3_EXECUTABLE} ${harness} --name ${mpi}.${name}.np${np}
            --trials ${trials} --interval 0.3 --timeout 120 ${ARGN}
            --ref-cache ${CMAKE_BINARY_DIR}/killrestart-references
            --ref "${launch_words} ${np} $<TARGET_FILE:${exe}.plain> ${args}"
            -- ${launch} ${np} $<TARGET_FILE:${exe}> ${argv})
  set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE ENVIRONMENT
    "${mpi_env};CCC_PROTOCOL=${protocol}")
endfunction()

# The fields of a table's ROW ("a|b|..."), in order, into the caller's
# variables NAMES; the fields past the names go into row_rest (a list).
# A row's Open MPI and MPICH columns are read into openmpi_X and mpich_X,
# so that ${${mpi}_X} is the one of the MPI at hand.
function(ccc_mpi_row row)
  string(REPLACE "|" ";" fields "${row}")
  list(LENGTH fields count)
  set(i 0)
  foreach(var ${ARGN})
    set(value "")
    if(i LESS count)
      list(GET fields ${i} value)
    endif()
    set(${var} "${value}" PARENT_SCOPE)
    math(EXPR i "${i} + 1")
  endforeach()
  set(rest "")
  if(i LESS count)
    list(SUBLIST fields ${i} -1 rest)
  endif()
  set(row_rest "${rest}" PARENT_SCOPE)
endfunction()

# A table of kill/restart programs for MPI: each row a program at one rank
# count, built (with its plain twin) and killed and restarted under each
# protocol of PROTOCOLS:
#   name|source|ranks|Open MPI args|MPICH args[|key=value ...]
# source: a file, or several (one program) with spaces between. Args "-":
# not built or run under that MPI (a row of the same program may have
# built it). Rows whose source is Fortran are skipped when the MPI has no
# flang module. The keys:
#   trace=RE && RE    regular expressions the non-blocking protocol's trace
#                     (CCC_VERBOSE=protocol) must match in some run
#   blocking_arg=ARG  appended to the arguments of the blocking runs
#   harness=OPTIONS   harness options of every run: `--option value` each,
#                     the value (spaces and all) up to the next ` --`
#   protocols=P ...   instead of the table's PROTOCOLS
#   program=NAME      the executable is mpi_MPI_NAME (a row of the same
#                     program builds it; default: from the PROGRAM pattern)
#   compile=FLAGS     compile options added to both builds
#   needs=mpi_f08     uses `use mpi_f08`: skipped without the MPI's module,
#                     whose library goes first on the link line
#   run_under=MPI ... built under every MPI with args, run only under these
# Tests are killrestart.mpi.MPI.TEST.npN, TEST the TEST pattern with
# <protocol> and <name> replaced; executables mpi_MPI_PROGRAM (default
# <name>), dots made underscores. A row run under both protocols has
# BLOCKING_TRIALS trials (default TRIALS) in its blocking runs, TRIALS in
# the others.
function(ccc_mpi_killrestart_table mpi)
  cmake_parse_arguments(PARSE_ARGV 1 table ""
    "TEST;PROGRAM;TRIALS;BLOCKING_TRIALS" "PROTOCOLS;ROWS")
  if(NOT DEFINED table_PROGRAM)
    set(table_PROGRAM "<name>")
  endif()
  if(NOT DEFINED table_BLOCKING_TRIALS)
    set(table_BLOCKING_TRIALS ${table_TRIALS})
  endif()
  foreach(row ${table_ROWS})
    ccc_mpi_row("${row}" name src np openmpi_args mpich_args)
    set(args "${${mpi}_args}")
    # The keys' values: row_trace, row_harness, ...
    foreach(key trace blocking_arg harness program compile needs run_under)
      set(row_${key} "")
    endforeach()
    set(row_protocols ${table_PROTOCOLS})
    string(REPLACE "<name>" "${name}" row_program "${table_PROGRAM}")
    foreach(k ${row_rest})
      if(NOT k MATCHES "^(trace|blocking_arg|harness|protocols|program|compile|needs|run_under)=(.*)$")
        message(FATAL_ERROR "MPI test row ${name}: unknown field '${k}'")
      endif()
      set(row_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
    endforeach()
    string(REPLACE " " ";" src "${src}")
    string(REPLACE " " ";" protocols "${row_protocols}")
    string(REPLACE " " ";" compile "${row_compile}")
    string(REPLACE " " ";" run_under "${row_run_under}")
    set(needs_f08 FALSE)
    if(row_needs STREQUAL "mpi_f08")
      set(needs_f08 TRUE)
    elseif(row_needs)
      message(FATAL_ERROR "MPI test row ${name}: needs=${row_needs}?")
    endif()
    if(args STREQUAL "-"
       OR (src MATCHES "\\.f(90)?$" AND NOT CCC_MPI_${mpi}_FORTRAN_MODULE_DIR)
       OR (needs_f08 AND NOT TARGET ccc_mpi_f08_${mpi}))
      continue()
    endif()

    string(REPLACE "." "_" exe "mpi_${mpi}_${row_program}")
    if(NOT TARGET ${exe})
      ccc_mpi_program(${mpi} ${exe} "${src}")
      if(compile)
        foreach(t ${exe} ${exe}.plain)
          target_compile_options(${t} PRIVATE ${compile})
        endforeach()
      endif()
      if(needs_f08)
        ccc_mpi_link_f08_first(${mpi} ${exe} ${exe}.plain)
      endif()
    endif()
    if(run_under AND NOT mpi IN_LIST run_under)
      continue()
    endif()

    # The harness options of every run, one word per option and value.
    set(options "")
    if(row_harness)
      string(REPLACE " --" ";--" pieces "${row_harness}")
      foreach(p ${pieces})
        if(p MATCHES "^(--[^ ]+) (.*)$")
          list(APPEND options ${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
        else()
          list(APPEND options ${p})
        endif()
      endforeach()
    endif()
    list(LENGTH protocols protocol_count)
    foreach(protocol ${protocols})
      set(run_args "${args}")
      set(trials ${table_TRIALS})
      set(opts "")
      if(protocol STREQUAL "blocking")
        if(protocol_count GREATER 1)
          set(trials ${table_BLOCKING_TRIALS})
        endif()
        if(row_blocking_arg)
          set(run_args "${args} ${row_blocking_arg}")
        endif()
      elseif(row_trace)
        set(opts --env CCC_VERBOSE=protocol)
        string(REPLACE " && " ";" expects "${row_trace}")
        foreach(e ${expects})
          list(APPEND opts --expect "${e}")
        endforeach()
      endif()
      string(REPLACE "<protocol>" "${protocol}" test "${table_TEST}")
      string(REPLACE "<name>" "${name}" test "${test}")
      ccc_mpi_killrestart(${mpi} ${test} ${exe} ${np} "${run_args}"
                          ${protocol} ${trials} ${opts} ${options})
    endforeach()
  endforeach()
endfunction()

# A family of kill/restart tests, FAMILY.PROTOCOL.NAME at both protocols,
# TRIALS trials in the non-blocking runs and CCC_MPI_FAMILY_BLOCKING_TRIALS
# in the blocking ones; ARGN: rows of ccc_mpi_killrestart_table.
function(ccc_mpi_family mpi family trials)
  ccc_mpi_killrestart_table(${mpi} TEST ${family}.<protocol>.<name>
    PROTOCOLS nonblocking blocking TRIALS ${trials}
    BLOCKING_TRIALS ${CCC_MPI_FAMILY_BLOCKING_TRIALS} ROWS ${ARGN})
endfunction()

# Test mpi.MPI.NAME: test/mpi/SCRIPT (or an absolute path) run on EXE, the
# job started by MPI's launcher at NP ranks, as
#   SCRIPT OPTIONS... LAUNCHER NP EXE ARGS...
# LAUNCHER: another launch command, ending in its rank-count option. ENV is
# added to the environment, PROPERTIES are further test properties.
function(ccc_mpi_outcome_test mpi name script exe np)
  cmake_parse_arguments(PARSE_ARGV 5 arg ""
    "" "OPTIONS;ARGS;ENV;LAUNCHER;PROPERTIES")
  ccc_mpi_launcher(launch ${mpi})
  if(arg_LAUNCHER)
    set(launch ${arg_LAUNCHER})
  endif()
  if(NOT IS_ABSOLUTE ${script})
    set(script ${CMAKE_CURRENT_SOURCE_DIR}/${script})
  endif()
  add_test(NAME mpi.${mpi}.${name}
    COMMAND ${Python3_EXECUTABLE} ${script} ${arg_OPTIONS}
            ${launch} ${np} $<TARGET_FILE:${exe}> ${arg_ARGS})
  set(env ${mpi_env})
  if(arg_ENV)
    set(env "${mpi_env};${arg_ENV}")
  endif()
  set_tests_properties(mpi.${mpi}.${name} PROPERTIES ENVIRONMENT "${env}"
    ${arg_PROPERTIES})
endfunction()

# Test mpi.MPI.NAME: test/mpi/SCRIPT comparing EXE at NP ranks with ARGS (a
# string) with the plain build of REF (default EXE) run the same way:
#   SCRIPT --ref "LAUNCHER NP REF.plain ARGS" -- LAUNCHER NP EXE ARGS...
# ENV is added to the environment, PROPERTIES are further test properties.
function(ccc_mpi_plain_compared_test mpi name script exe np args)
  cmake_parse_arguments(PARSE_ARGV 6 arg "" "REF" "ENV;PROPERTIES")
  if(NOT arg_REF)
    set(arg_REF ${exe})
  endif()
  ccc_mpi_launcher(launch ${mpi})
  string(REPLACE ";" " " launch_words "${launch}")
  set(ref "${launch_words} ${np} $<TARGET_FILE:${arg_REF}.plain>")
  if(NOT args STREQUAL "")
    set(ref "${ref} ${args}")
  endif()
  string(REPLACE " " ";" argv "${args}")
  add_test(NAME mpi.${mpi}.${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/${script}
            --ref "${ref}" -- ${launch} ${np} $<TARGET_FILE:${exe}> ${argv})
  set(env ${mpi_env})
  if(arg_ENV)
    set(env "${mpi_env};${arg_ENV}")
  endif()
  set_tests_properties(mpi.${mpi}.${name} PROPERTIES ENVIRONMENT "${env}"
    ${arg_PROPERTIES})
endfunction()

# A scenario program (scenarios/NAME.c) run by scenario_test.py under the
# non-blocking protocol with 3 ranks; ARGN: its --first/--restart patterns.
function(ccc_mpi_scenario mpi name)
  ccc_mpi_launcher(launch ${mpi})
  string(REPLACE ";" " " launch_words "${launch}")
  set(exe mpi_${mpi}_${name})
  ccc_mpi_program(${mpi} ${exe} scenarios/${name}.c)
  set(test mpi.${mpi}.nonblocking.scenario_${name})
  add_test(NAME ${test}
    COMMAND ${Python3_EXECUTABLE}
            ${CMAKE_CURRENT_SOURCE_DIR}/scenarios/scenario_test.py
            --ref "${launch_words} 3 $<TARGET_FILE:${exe}.plain>"
            ${ARGN}
            -- ${launch} 3 $<TARGET_FILE:${exe}>)
  set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE ENVIRONMENT
    "${mpi_env};CCC_PROTOCOL=nonblocking")
endfunction()

# A test of test/mpi/SCRIPT (restart_case.py's command line) on the 2-rank
# halo program PROGRAM (mpi_MPI_PROGRAM) at STEPS, named mpi.MPI.NAME, with
# ccc's variables PROTOCOL (none: "-") and the script's OPTIONS (a list)
# after its --launcher; ARGN: its other test properties.
function(ccc_halo_case mpi name script program steps protocol options)
  ccc_mpi_launcher(launch ${mpi})
  string(REPLACE ";" " " launch_words "${launch}")
  set(exe mpi_${mpi}_${program})
  add_test(NAME mpi.${mpi}.${name}
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/${script}
            --ref "${launch_words} 2 $<TARGET_FILE:${exe}.plain> ${steps}"
            --launcher "${launch_words}" ${options}
            -- $<TARGET_FILE:${exe}> ${steps})
  set(env ${mpi_env})
  if(NOT protocol STREQUAL "-")
    set(env "${mpi_env};CCC_PROTOCOL=${protocol}")
  endif()
  set_tests_properties(mpi.${mpi}.${name} PROPERTIES ENVIRONMENT "${env}"
    ${ARGN})
endfunction()

# A table of ccc_halo_case tests for MPI, a row each:
#   name|script|program|Open MPI steps|MPICH steps|protocol|script options|test properties
# (options and properties: words with spaces between). Steps "-": not run
# under that MPI.
function(ccc_halo_case_table mpi)
  foreach(row ${ARGN})
    ccc_mpi_row("${row}" name script program openmpi_steps mpich_steps
                protocol options properties)
    set(steps "${${mpi}_steps}")
    if(steps STREQUAL "-")
      continue()
    endif()
    string(REPLACE " " ";" options "${options}")
    string(REPLACE " " ";" properties "${properties}")
    ccc_halo_case(${mpi} ${name} ${script} ${program} ${steps} ${protocol}
                  "${options}" ${properties})
  endforeach()
endfunction()

# The test that the layer adds no byte to a message (issue 43).
include(${CMAKE_CURRENT_LIST_DIR}/NoByteAdded.cmake)
