function seed = random_seed()
%RANDOM_SEED A seed for the library from rand: fresh each call, reproducible after rng(...).
seed = floor(rand() * 2^26) * 2^26 + floor(rand() * 2^26);
end
