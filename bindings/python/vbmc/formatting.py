"""format_dict, as in PyVBMC's pyvbmc.formatting, so that scripts printing results with it run
unchanged: one "key: value" line per entry, nested dictionaries indented, arrays summarised."""
import numpy as np


def format_dict(d, **kwargs):
    """The dictionary d as an indented string; arrays with more than `arr_size_thresh` (10)
    elements are shown by their shape."""
    if d is None:
        return "None"
    lines = []
    for key, value in d.items():
        if isinstance(value, dict):
            text = format_dict(value, **kwargs)
        elif isinstance(value, np.ndarray) and value.size > kwargs.get("arr_size_thresh", 10):
            text = "array of shape %s" % (value.shape,)
        else:
            text = repr(value)
        lines.append("%r: %s," % (key, text))
    return "{\n" + "\n".join("    " + line.replace("\n", "\n    ") for line in lines) + "\n}"
