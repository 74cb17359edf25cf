"""The image service (Glance v2 API): Glance's own option names where they exist.

[image_api] holds what glance-api.conf keeps in [DEFAULT] (those names would
clash with Nova's [DEFAULT] here; [glance] is already the compute side's
client). [glance_store] and [os_glance_staging_store] keep Glance's groups.
"""

from __future__ import annotations

from oslo_config import cfg

api_group = cfg.OptGroup("image_api", help="The image service (Glance v2 API).")
store_group = cfg.OptGroup("glance_store", help="Where image data is stored.")
staging_group = cfg.OptGroup(
    "os_glance_staging_store", help="Where the interoperable import stages data."
)

FORMATS = ["ami", "ari", "aki", "vhd", "vhdx", "vmdk", "raw", "qcow2", "vdi", "iso", "ploop"]
CONTAINERS = ["ami", "ari", "aki", "bare", "ovf", "ova", "docker", "compressed"]

api_opts: list[cfg.Opt] = [
    cfg.PortOpt("bind_port", default=9292, help="Port of the image API (before port_offset)."),
    cfg.IntOpt(
        "image_size_cap",
        default=1099511627776,
        min=1,
        max=9223372036854775808,
        help="Largest image upload in bytes (Glance's default: 1 TiB).",
    ),
    cfg.StrOpt(
        "user_storage_quota",
        default="20GB",
        help="Total bytes of image data a project may hold, with an optional unit "
        "(B, KB, MB, GB, TB; binary multiples), as Glance writes it. Active images, "
        "staged data and uploads in progress all count, so concurrent uploads cannot "
        "together pass it. 0 means unlimited, as in Glance; unlike Glance (default 0) "
        "the default is finite, 20GB: room for a dozen or more cloud images, while one "
        "member cannot fill the host's disk for everyone. Raise it for large images.",
    ),
    cfg.IntOpt(
        "image_count_total",
        default=1000,
        min=-1,
        help="Images a project may own (the unified-limits name); -1 means unlimited. "
        "Finite by default (Glance's is -1), so a member cannot fill the image "
        "database with empty queued records.",
    ),
    cfg.IntOpt("image_member_quota", default=128, min=-1, help="Members per image; -1: no limit."),
    cfg.IntOpt("image_property_quota", default=128, min=-1, help="Properties per image."),
    cfg.IntOpt("image_tag_quota", default=128, min=-1, help="Tags per image."),
    cfg.StrOpt(
        "hashing_algorithm",
        default="sha512",
        choices=["sha256", "sha384", "sha512", "sha3_256", "sha3_512", "blake2b"],
        help="Secure hash written to os_hash_value (checksum stays md5).",
    ),
    cfg.IntOpt("limit_param_default", default=25, min=1, help="Default page size of lists."),
    cfg.IntOpt("api_limit_max", default=1000, min=1, help="Largest page size of lists."),
    cfg.ListOpt(
        "disk_formats", default=FORMATS, help="Disk formats accepted (Glance's [image_format])."
    ),
    cfg.ListOpt("container_formats", default=CONTAINERS, help="Container formats accepted."),
    cfg.ListOpt(
        "enabled_import_methods",
        default=["glance-direct"],
        help="Interoperable import methods advertised by /v2/info/import.",
    ),
    cfg.StrOpt("qemu_img", default="qemu-img", help="The qemu-img command (virtual sizes)."),
]

store_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "filesystem_store_datadir",
        default="$state_path/images",
        help="Directory image data is written to (atomically: temp file, fsync, rename).",
    ),
    cfg.StrOpt(
        "filesystem_store_reserve",
        default="1GB",
        help="Free space an upload must leave on the filesystem it writes to (the store "
        "and the staging directory alike): a size with a unit as user_storage_quota "
        "(e.g. 1GB) or a percentage of the filesystem's size (e.g. 5%). An upload that "
        "would go below it is refused with 413: up front when its size is announced, "
        "otherwise before the chunk that would cross it is written. 0 turns it off.",
    ),
]

staging_opts: list[cfg.Opt] = [
    cfg.StrOpt(
        "filesystem_store_datadir",
        default="$state_path/image-staging",
        help="Directory of data staged for glance-direct import.",
    ),
    cfg.StrOpt(
        "total_size_cap",
        default="50GB",
        help="Total bytes the staging area may hold for all projects together (staged "
        "data and stagings in progress), with a unit as user_storage_quota; a stage "
        "past it is refused with 413. 0 means unlimited. Staged data also counts "
        "against its project's user_storage_quota.",
    ),
]


def list_opts() -> list[tuple[cfg.OptGroup | None, list[cfg.Opt]]]:
    return [
        (api_group, api_opts),
        (store_group, store_opts),
        (staging_group, staging_opts),
    ]
