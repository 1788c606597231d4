# lit configuration for the ccc pass tests.
import os
import lit.formats

config.name = "ccc-pass"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".ll", ".c", ".cpp", ".f90", ".f"]
config.excludes = ["Inputs"]
config.test_source_root = config.ccc_source_dir
config.environment["PATH"] = os.pathsep.join(
    [config.llvm_tools_dir, config.environment.get("PATH", "")])
config.substitutions.append(("%plugin", config.ccc_plugin))
config.substitutions.append(
    ("%opt", f"opt -load-pass-plugin={config.ccc_plugin}"))
config.substitutions.append(
    ("%clang", f"clang -I{config.ccc_include}"))
config.substitutions.append(
    ("%clangxx", f"clang++ -I{config.ccc_include}"))
config.substitutions.append(("%flang", "flang-new"))
# llvm19, llvm22: the LLVM of the plugin and tools under test, for what
# differs between them (XFAIL: llvm22).
config.available_features.add(f"llvm{config.llvm_major}")
