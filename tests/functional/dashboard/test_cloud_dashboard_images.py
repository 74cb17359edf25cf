"""The dashboard's Images, Key pairs and Overview pages against a real `saphira up`
(fake driver), through HTTP as a browser sends them: an upload detected as qcow2
going active with its progress streamed, a refused format removing its image, a
body over the cap refused before it is read, deletes through their confirmations,
what another project or user cannot see or do, a generated private key given once,
an imported key, and the quota usage in words; and one upload in headless Chromium."""

from __future__ import annotations

import json
import re
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium.webdriver.common.by import By

from tests.browser import chrome
from tests.functional.clients import sdk
from tests.functional.cloud import Cloud
from tests.functional.dashboard.pages import Pages
from tests.functional.dashboard.world import TIMEOUT, Visitor, World

pytestmark = pytest.mark.functional
PUBLIC_KEY = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDb7ZpDWt7y2pWm5pPCKm0m3Q3XyXG5tJ7o0lGZkQ0Gk dash@test"
)


@pytest.fixture(scope="module")
def qcow2(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("qcow2") / "disk.qcow2"
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", str(path), "64M"], check=True)
    return path


def _upload(visitor: Visitor, name: str, data: bytes, disk_format: str = "") -> dict[str, str]:
    """The form as the page's script sends it (asking for JSON); its 202 answer."""
    visitor.get("/project/images/create")
    form = {"csrf_token": visitor.token(), "name": name, "disk_format": disk_format,
            "visibility": "private"}  # fmt: skip
    answer = visitor.http.post(
        f"{visitor.base}/project/images/create", data=form, timeout=TIMEOUT,
        files={"file": ("upload.bin", data)}, headers={"Accept": "application/json"},
    )  # fmt: skip
    assert answer.status_code == 202, answer.text
    body: dict[str, str] = answer.json()
    return body


def _progress(visitor: Visitor, url: str) -> list[dict[str, object]]:
    """Every progress event of an upload's stream, until it ends."""
    events = []
    with visitor.http.get(visitor.base + url, stream=True, timeout=TIMEOUT) as stream:
        assert stream.status_code == 200
        for line in stream.iter_lines(decode_unicode=True):
            if line.startswith("data: "):
                events.append(json.loads(line.removeprefix("data: ")))
    return events


def test_an_upload_is_detected_streamed_and_turns_active(
    cloud: Cloud, demo: Visitor, qcow2: Path
) -> None:
    data = qcow2.read_bytes()
    made = _upload(demo, "dash-qcow2", data)
    assert made["disk_format"] == "qcow2"
    events = _progress(demo, made["progress"])
    assert events[-1]["phase"] == "active" and events[-1]["status"] == "active"
    assert events[-1]["sent"] == events[-1]["total"] == len(data)
    image = sdk(cloud.clouds_yaml, "demo").image.get_image(made["image"])
    assert (image.status, image.disk_format, image.container_format) == ("active", "qcow2", "bare")
    listing = demo.get("/project/images").text
    row = re.search(rf'<tr id="image-{made["image"]}" data-status="([a-z]+)">(.*?)</tr>', listing,
                    re.S)  # fmt: skip
    assert row is not None and row[1] == "active" and "QCOW2" in row[2] and "Private" in row[2]
    page = demo.get(made["detail"]).text
    assert "Active" in page and "Delete Image" in page
    steps = re.search(r'<ol class="steps" id="steps"( data-progress="[^"]*")?>', page)
    assert steps is not None and steps[1] is None  # the upload's steps, ended: nothing to follow
    assert '<progress id="store-bar" max="100" value="100">' in page


def test_a_format_the_data_is_not_is_refused_and_the_image_removed(
    cloud: Cloud, demo: Visitor, qcow2: Path
) -> None:
    made = _upload(demo, "dash-wrong", qcow2.read_bytes(), disk_format="raw")
    events = _progress(demo, made["progress"])
    assert events[-1]["phase"] == "failed"
    assert "qcow2" in str(events[-1]["message"]) and "removed" in str(events[-1]["message"])
    assert made["image"] not in {i.id for i in sdk(cloud.clouds_yaml, "demo").image.images()}
    gone = demo.get(made["detail"])  # where the form without script lands: why, in words
    assert gone.status_code == 404 and "The image was removed." in gone.text


def test_a_form_upload_without_script_lands_on_the_image_page(demo: Visitor) -> None:
    page = demo.get("/project/images/create").text
    assert 'value="private"' in page and 'value="public"' not in page  # publicize_image: admin
    form = {"csrf_token": demo.token(), "name": "dash-plain", "visibility": "private"}
    url = f"{demo.base}/project/images/create"
    answer = demo.http.post(url, data=form, files={"file": ("x.img", b"\0" * 4096)},
                            timeout=TIMEOUT, allow_redirects=False)  # fmt: skip
    assert answer.status_code == 303
    assert re.fullmatch(r"/project/images/[0-9a-f-]{36}", answer.headers["Location"])
    empty = demo.http.post(url, data={**form, "name": "dash-empty"},
                           files={"file": ("e.img", b"")}, timeout=TIMEOUT)  # fmt: skip
    assert empty.status_code == 400 and "The file is empty." in empty.text
    unnamed = demo.http.post(url, data={**form, "name": " "}, files={"file": ("n.img", b"1")},
                             headers={"Accept": "application/json"}, timeout=TIMEOUT)  # fmt: skip
    assert unnamed.status_code == 400 and unnamed.json() == {"error": "Give the image a name."}
    as_json = {"Accept": "application/json"}
    public = demo.http.post(url, data={**form, "visibility": "public"}, headers=as_json,
                            files={"file": ("p.img", b"1")}, timeout=TIMEOUT)  # fmt: skip
    assert public.status_code == 400 and "visibility" in public.json()["error"]


def test_a_body_over_the_cap_is_refused_before_it_is_read(demo: Visitor) -> None:
    """A request announcing 9 GiB (the cap is 8) is answered 413 with no byte of it sent."""
    where = urlsplit(demo.base)
    cookie = "; ".join(f"{c.name}={c.value}" for c in demo.http.cookies)
    head = (
        f"POST /project/images/create HTTP/1.1\r\nHost: {where.netloc}\r\nCookie: {cookie}\r\n"
        "Content-Type: multipart/form-data; boundary=x\r\n"
        f"Content-Length: {9 * 1024**3}\r\n\r\n"
    )
    with socket.create_connection((where.hostname, where.port), timeout=TIMEOUT) as sock:
        sock.sendall(head.encode())
        answer = b"".join(iter(lambda: sock.recv(65536), b"")).decode(errors="replace")
    assert answer.startswith("HTTP/1.1 413"), answer
    assert "more than the dashboard accepts (at most 8.0 GiB)" in answer


def test_delete_is_confirmed_and_offered_only_on_images_of_the_project(
    cloud: Cloud, demo: Visitor, world: World
) -> None:
    made = _upload(demo, "dash-doomed", b"\0" * 4096, disk_format="raw")
    assert _progress(demo, made["progress"])[-1]["phase"] == "active"
    listing = demo.get("/project/images").text
    public = re.search(rf'<tr id="image-{world.image_id}".*?</tr>', listing, re.S)
    assert public is not None and "Delete" not in public[0]  # the admin's public image
    assert demo.get(f"/project/images/{world.image_id}/delete").status_code == 403
    confirm = demo.get(f"{made['detail']}/delete")
    assert confirm.status_code == 200 and "no new instance can be launched" in confirm.text
    unconfirmed = demo.post(f"{made['detail']}/delete", {})
    assert unconfirmed.status_code == 303 and unconfirmed.headers["Location"].endswith("/delete")
    other = Visitor(world.base)
    assert other.login(world.other_user, world.other_password).status_code == 303
    assert other.get(made["detail"]).status_code == 404
    assert other.get(made["progress"]).status_code == 404
    assert demo.post(f"{made['detail']}/delete", {"confirmed": "yes"}).status_code == 303
    assert made["image"] not in demo.get("/project/images").text


def test_a_generated_private_key_is_downloaded_once(cloud: Cloud, demo: Visitor) -> None:
    demo.get("/project/key_pairs/create")
    made = demo.post("/project/key_pairs/create", {"name": "dash-made", "type": "ssh"})
    assert made.status_code == 303 and made.headers["Location"].endswith("/dash-made/created")
    page = demo.get("/project/key_pairs/dash-made/created")
    assert "offered once" in page.text
    first = demo.post("/project/key_pairs/dash-made/download", {})
    assert first.status_code == 200 and "PRIVATE KEY-----" in first.text
    assert first.headers["Content-Disposition"] == 'attachment; filename="dash-made.pem"'
    again = demo.post("/project/key_pairs/dash-made/download", {})
    assert again.status_code == 410 and "downloaded already" in again.text
    assert 'id="gone"' in demo.get("/project/key_pairs/dash-made/created").text
    stored = sdk(cloud.clouds_yaml, "demo").compute.get_keypair("dash-made")
    assert stored.fingerprint in demo.get("/project/key_pairs").text


def test_an_imported_key_is_listed_then_deleted_through_its_confirmation(
    demo: Visitor, world: World
) -> None:
    demo.get("/project/key_pairs/import")
    bad = demo.post("/project/key_pairs/import", {"name": "dash-bad", "public_key": "nonsense"})
    assert bad.status_code == 400 and "The cloud refused the request" in bad.text
    done = demo.post(
        "/project/key_pairs/import", {"name": "dash imported", "public_key": PUBLIC_KEY}
    )
    assert done.status_code == 303
    assert 'data-name="dash imported"' in demo.get("/project/key_pairs").text
    other = Visitor(world.base)
    assert other.login(world.other_user, world.other_password).status_code == 303
    assert other.get("/project/key_pairs/dash%20imported/delete").status_code == 404
    confirm = demo.get("/project/key_pairs/dash%20imported/delete")
    assert "removes only its public key" in confirm.text
    assert (
        demo.post("/project/key_pairs/dash%20imported/delete", {"confirmed": "yes"}).status_code
        == 303
    )
    assert 'data-name="dash imported"' not in demo.get("/project/key_pairs").text


def test_the_overview_says_the_quota_usage_in_words(cloud: Cloud, demo: Visitor) -> None:
    conn = sdk(cloud.clouds_yaml, "demo")
    project = conn.current_project_id
    quota = conn.compute.get_quota_set(project, usage=True)
    networks = conn.network.get_quota(project, details=True)
    page = demo.get("/project/overview").text
    found = re.findall(
        r'<li class="chart" id="usage-([a-z-]+)">.*?<p class="numbers">([^<]+)</p>', page, re.S
    )
    said = dict(found)
    assert set(said) == {
        "instances", "vcpus", "ram", "key-pairs", "networks", "ports", "security-groups",
    }  # fmt: skip
    used = quota.usage
    assert said["instances"].startswith(f"{used['instances']} of {quota.instances} used")
    assert said["vcpus"].startswith(f"{used['cores']} of {quota.cores} used")
    assert said["ram"].startswith(f"{used['ram']} MiB of {quota.ram} MiB used")
    keys = len(list(conn.compute.keypairs()))
    assert keys >= 1 and said["key-pairs"].startswith(f"{keys} of {quota.key_pairs} used")
    groups = networks.security_groups
    assert groups["used"] >= 1  # the project's default group
    expected = "no limit" if groups["limit"] < 0 else f"of {groups['limit']} used"
    assert (
        said["security-groups"].startswith(f"{groups['used']} ")
        and expected in said["security-groups"]
    )


def test_in_a_browser_the_progress_runs_to_the_end_and_the_image_turns_active(
    world: World, qcow2: Path, tmp_path: Path
) -> None:
    """Debian's headless Chromium: the file chosen, its format guessed on the page and
    left to detection, both bars at their end and the image active on the page, then
    Active in the list; a screenshot of each page is kept under the test's tmp dir."""
    with chrome() as browser:
        _upload_in_a_browser(Pages(browser, world.base, tmp_path), world, qcow2)


def _upload_in_a_browser(pages: Pages, world: World, qcow2: Path) -> None:
    driver = pages.driver
    pages.log_in("demo", world.demo_password)
    pages.follow("Project", "Images", "create-image").click()
    driver.find_element(By.ID, "name").send_keys("uploaded-in-the-browser")
    driver.find_element(By.ID, "file").send_keys(str(qcow2))
    detect = driver.find_element(By.CSS_SELECTOR, "#disk_format option[value='']")
    pages.until("the format guessed from the chosen file", lambda: "QCOW2" in detect.text)
    assert driver.find_element(By.ID, "disk_format").get_attribute("value") == ""  # left to detect
    pages.shot("create-image")
    driver.find_element(By.ID, "submit").click()

    def bar(name: str) -> str:
        return str(driver.find_element(By.ID, name).get_attribute("value"))

    pages.until("active", lambda: driver.find_element(By.ID, "image-status").text == "active")
    assert (bar("send-bar"), bar("store-bar")) == ("100", "100")
    assert driver.find_element(By.ID, "store-text").text.endswith("(100 %)")
    assert driver.find_element(By.ID, "detected").text == "Disk format: QCOW2."
    assert driver.find_element(By.ID, "upload-message").text == ""
    pages.shot("uploaded")
    driver.find_element(By.ID, "image-link").click()
    pages.shown("disk-format")  # the image's page
    assert driver.find_element(By.ID, "status").text == "Active"
    assert driver.find_element(By.ID, "disk-format").text == "QCOW2"
    pages.follow("Project", "Images", "create-image")
    row = driver.find_element(By.XPATH, "//tr[td/a[text()='uploaded-in-the-browser']]")
    assert row.get_attribute("data-status") == "active"
    pages.shot("images")
    assert len(list(pages.shots.glob("*.png"))) == pages.taken == 3
