# Right, written differently: a volatile access still races.
# expect: accepted
s|\*count = \*count + 1;|*(volatile unsigned long long *)count += 1;|
