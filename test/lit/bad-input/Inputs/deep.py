"""Writes IR nested DEPTH levels deep, to check that the readers and the
region parser refuse it with an error instead of running out of stack:
  deep.py regions DEPTH   region form: DEPTH nested task regions
  deep.py metadata DEPTH  graph form: graph metadata DEPTH nodes deep
"""
import sys

kind, depth = sys.argv[1], int(sys.argv[2])
out = ['@.n = private unnamed_addr constant [2 x i8] c"n\\00"',
       "declare token @llvm.directive.region.entry()",
       "declare void @llvm.directive.region.exit(token)"]
if kind == "regions":
    out.append("define void @f(ptr %x) {\nentry:")
    for d in range(depth):
        out.append(f'  %t{d} = call token @llvm.directive.region.entry() '
                   f'[ "hpvm.node"(ptr @.n), "hpvm.inout"(ptr %x, i64 4) ]')
    out.append("  store float 1.0, ptr %x")
    for d in reversed(range(depth)):
        out.append(f"  call void @llvm.directive.region.exit(token %t{d})")
    out.append("  ret void\n}")
else:
    out.append("define internal void @leaf() {\n  ret void\n}")
    out.append("@llvm.compiler.used = appending global [1 x ptr] [ptr @leaf], "
               'section "llvm.metadata"')
    out.append("!hpvm.graphs = !{!0}")
    out.append('!0 = !{!"hpvm.graph", !"g", !1}')
    # Node k (metadata !(2k+1)) has one child, node k+1, listed in !(2k+2).
    for k in range(depth):
        node, kids = 2 * k + 1, 2 * k + 2
        name = "g" if k == 0 else f"n{k}"  # the root is named after its graph
        if k + 1 < depth:
            out.append(f'!{node} = !{{!"hpvm.node", !"name", !"{name}", '
                       f'!"kind", !"internal", !"children", !{kids}}}')
            out.append(f"!{kids} = !{{!{kids + 1}}}")
        else:
            out.append(f'!{node} = !{{!"hpvm.node", !"name", !"{name}", '
                       f'!"kind", !"leaf", !"function", ptr @leaf}}')
print("\n".join(out))
