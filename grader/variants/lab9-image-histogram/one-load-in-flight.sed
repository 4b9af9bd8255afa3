# The fast kernel with one 16-byte load in flight a thread instead of two: still right, slower.
# expect: accepted
s|^static const int loads_in_flight = 2;$|static const int loads_in_flight = 1;|
