import re

from kernel.ids import REC, new_id


def test_ids_are_typed_and_unguessable():
    ids = {new_id(REC) for _ in range(1000)}

    assert len(ids) == 1000
    assert all(re.fullmatch(r"rec_[0-9a-f]{24}", value) for value in ids)
