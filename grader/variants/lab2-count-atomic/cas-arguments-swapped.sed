# atomicCAS called with the new value where the expected one goes: the swap never happens.
# expect: nothing was added
s|atomicCAS(bits_address, expected, desired)|atomicCAS(bits_address, desired, expected)|
