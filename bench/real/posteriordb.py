"""Reading posteriordb (github.com/stan-dev/posteriordb) at run time, Python standard library only.

Nothing read here is committed: the data files written by write_data_file go to bench/out/real/
(git-ignored), and the reference draws are only used to compute our own summary numbers. The
database is either a bare git directory (read with `git show HEAD:...`) or a normal checkout.

    posteriordb.py POSTERIOR OUT_FILE [--posteriordb DIR]   writes one model's data file
"""
import argparse
import io
import json
import os
import subprocess
import zipfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_LOCATIONS = ["/work/.mirror/stan-dev+posteriordb/repo",
                     os.path.join(os.path.dirname(REPO), "shared", "posteriordb")]


def locate(path=None):
    """The posteriordb to read: path if given, else $POSTERIORDB, else the first default location
    that exists; None if there is none."""
    candidates = [path] if path else [os.environ.get("POSTERIORDB")] + DEFAULT_LOCATIONS
    for candidate in candidates:
        if candidate and os.path.isdir(candidate):
            return candidate
    return None


class PosteriorDB:
    """Files of a posteriordb bare git directory or checkout."""

    def __init__(self, path):
        self.path = path
        self.bare = not os.path.isdir(os.path.join(path, "posterior_database"))
        if self.bare and not os.path.exists(os.path.join(path, "HEAD")):
            raise FileNotFoundError(f"{path} is neither a posteriordb checkout nor a git directory")

    def read(self, relative):
        """The bytes of posterior_database/<relative>."""
        name = "posterior_database/" + relative
        if not self.bare:
            with open(os.path.join(self.path, name), "rb") as f:
                return f.read()
        return subprocess.run(["git", "--git-dir", self.path, "show", "HEAD:" + name],
                              capture_output=True, check=True).stdout

    def read_zipped_json(self, relative):
        archive = zipfile.ZipFile(io.BytesIO(self.read(relative)))
        return json.loads(archive.read(archive.namelist()[0]))

    def posterior(self, name):
        return json.loads(self.read(f"posteriors/{name}.json"))

    def data(self, posterior_name):
        """The posterior's data set as a dict of JSON values."""
        data_name = self.posterior(posterior_name)["data_name"]
        return self.read_zipped_json(f"data/data/{data_name}.json.zip")

    def reference_draws(self, posterior_name):
        """The reference posterior draws: {Stan name: [values, chain after chain]}."""
        chains = self.read_zipped_json(f"reference_posteriors/draws/draws/{posterior_name}.json.zip")
        return {key: [v for chain in chains for v in chain[key]] for key in chains[0]}


def flatten(value):
    if isinstance(value, list):
        return [item for element in value for item in flatten(element)]
    return [value]


def write_data_file(db, posterior_name, path):
    """Writes the posterior's data set in the format of bench/real/real_data.h: every field as a
    named array, matrices flattened row-major."""
    data = db.data(posterior_name)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    lines = [f"# posteriordb data of {posterior_name}, written by bench/real/posteriordb.py; "
             "not to be committed or redistributed"]
    for name, value in data.items():
        values = flatten(value)
        lines.append(f"{name} {len(values)}")
        lines += [" ".join(repr(v) for v in values[i:i + 8]) for i in range(0, len(values), 8)]
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


def stan_value(draws, name):
    """One of our parameters from the Stan draws: a Stan name ("beta[1]"), a gap of an ordered
    pair ("mu[2]-mu[1]"), or eight_schools' non-centred theta_trans[j] = (theta[j] - mu) / tau
    (the reference draws hold theta, a transformed parameter)."""
    if name in draws:
        return draws[name]
    if "-" in name:
        upper, lower = name.split("-")
        return [a - b for a, b in zip(draws[upper], draws[lower])]
    if name.startswith("theta_trans["):
        theta = draws["theta" + name[len("theta_trans"):]]
        return [(t - m) / s for t, m, s in zip(theta, draws["mu"], draws["tau"])]
    raise KeyError(f"no reference draws for parameter {name}")


def draws_matrix(db, posterior_name, param_names):
    """The reference draws as rows [x_1, ..., x_D] in our parametrisation."""
    draws = db.reference_draws(posterior_name)
    columns = [stan_value(draws, name) for name in param_names]
    return [list(row) for row in zip(*columns)]


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("posterior")
    parser.add_argument("out_file")
    parser.add_argument("--posteriordb", help="bare git directory or checkout")
    args = parser.parse_args()
    path = locate(args.posteriordb)
    if not path:
        raise SystemExit("posteriordb not found (give --posteriordb DIR)")
    write_data_file(PosteriorDB(path), args.posterior, args.out_file)


if __name__ == "__main__":
    main()
