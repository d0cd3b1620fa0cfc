//! Tests of `formats`.

use super::*;

fn valid(format: &str, values: &[&str]) {
    for v in values {
        assert!(check_string_format(format, v), "{format}: {v:?} should be valid");
    }
}

fn invalid(format: &str, values: &[&str]) {
    for v in values {
        assert!(!check_string_format(format, v), "{format}: {v:?} should be invalid");
    }
}

#[test]
fn registry() {
    for f in ["date-time", "datetime", "date--time", "-uuid", "ip-v4", "password", "k8s-short-name", "k8sshortname", "byte"] {
        assert!(is_validated_format(f), "{f}");
    }
    for f in ["int32", "int64", "float", "double", "url", "DATE-TIME", "Email", "ipv4 ", "", "quantity", "int-or-string"] {
        assert!(!is_validated_format(f), "{f}");
        assert!(check_string_format(f, "anything at all"), "{f}");
    }
}

#[test]
fn date() {
    valid("date", &["2024-02-29", "2000-02-29", "0000-01-01", "9999-12-31"]);
    invalid(
        "date",
        &[
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-00-10",
            "2024-01-00",
            "2024-04-31",
            "2024-1-01",
            "24-01-01",
            "2024-01-01T00:00:00Z",
            "2024/01/01",
            " 2024-01-01",
            "",
            "+024-01-01",
        ],
    );
}

#[test]
fn date_time() {
    valid(
        "date-time",
        &[
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05z",
            "2024-01-02T03:04:05.123456789Z",
            "2024-01-02T03:04:05+01:00",
            "2024-01-02T03:04:05.5-08:00",
            "2024-01-02T23:59:59Z",
            // Quirks of upstream's check: any character before the fraction digits, any
            // offset numbers, and anything after a second 't'.
            "2024-01-02T03:04:05,5Z",
            "2024-01-02T03:04:05x5Z",
            "2024-01-02T03:04:05+99:99",
            "2024-01-02T03:04:05ZTrailing",
        ],
    );
    invalid(
        "datetime",
        &[
            "2024-01-02",
            "2024-01-02 03:04:05Z",
            "2024-01-02T03:04:05",
            "2024-01-02T24:00:00Z",
            "2024-01-02T23:60:00Z",
            "2024-01-02T23:59:60Z",
            "2024-01-02T3:04:05Z",
            "2024-01-02T03:04:05.Z",
            "2024-01-02T03:04:05+0100",
            "2024-02-30T03:04:05Z",
            "T03:04:05Z",
            "foo",
            "",
        ],
    );
}

#[test]
fn duration() {
    valid(
        "duration",
        &[
            "0",
            "-0",
            "+0",
            "1h",
            "1h30m",
            "1.5h",
            ".5s",
            "5.s",
            "-1m",
            "300ms",
            "1us",
            "1µs",
            "1μs",
            "2562047h47m16.854775807s",
            // Too long for Go, but the lenient syntax still finds "2562047h" and more.
            "2562047h47m16.854775808s",
            // kube-openapi's lenient syntax.
            "3 days",
            "1d",
            "2w",
            "5 minutes",
            "1 hour 30 min",
            "10 sec",
            "7 nano",
            "15 Milliseconds",
            "1h 30m",
            "wait 5 secs please",
        ],
    );
    invalid(
        "duration",
        &["", "h", "1", "1x", "-", ".s", "forever", "1.5", "99999999999999999999ns", "1h 99999999999999999999x", "1 parsec"],
    );
}

#[test]
fn go_durations_alone() {
    assert!(crate::duration::parse_duration("-2562047h47m16.854775808s").is_ok());
    assert!(crate::duration::parse_duration("2562047h47m16.854775808s").is_err());
    assert!(crate::duration::parse_duration("0.99999999999999999999999s").is_ok());
    assert!(crate::duration::parse_duration("1h ").is_err());
    assert!(crate::duration::parse_duration("1d").is_err());
    assert!(crate::duration::parse_duration("00").is_err());
    assert!(crate::duration::parse_duration("00s").is_ok());
}

#[test]
fn byte() {
    valid("byte", &["aGVsbG8=", "aGVsbG8h", "aGk=", "+/+/", "AAAA"]);
    invalid("byte", &["", "aGVsbG8", "aGVsbG8==", "a", "aGVs bG8=", "aGVsbG8_", "aGVsbG8-", "=AAA"]);
}

#[test]
fn uuids() {
    valid("uuid", &["123e4567-e89b-12d3-a456-426614174000", "123E4567E89B12D3A456426614174000", "123e4567-e89b12d3-a456-426614174000"]);
    invalid(
        "uuid",
        &[
            "123e4567-e89b-12d3-a456-42661417400",
            "123e4567-e89b-12d3-a456-4266141740000",
            "g23e4567-e89b-12d3-a456-426614174000",
            "{123e4567-e89b-12d3-a456-426614174000}",
            "",
        ],
    );
    valid("uuid3", &["a3bb189e-8bf9-3888-9912-ace4e6543002"]);
    invalid("uuid3", &["a3bb189e-8bf9-4888-9912-ace4e6543002"]);
    valid("uuid4", &["713ae7e3-cb32-45f9-adcb-7c4fa86b90c1", "713AE7E3-CB32-45F9-BDCB-7C4FA86B90C1"]);
    invalid("uuid4", &["713ae7e3-cb32-45f9-cdcb-7c4fa86b90c1", "713ae7e3-cb32-35f9-adcb-7c4fa86b90c1"]);
    valid("uuid5", &["987fbc97-4bed-5078-af07-9141ba07c9f3"]);
    invalid("uuid5", &["987fbc97-4bed-5078-0f07-9141ba07c9f3", "987fbc97-4bed-4078-af07-9141ba07c9f3"]);
}

#[test]
fn hostname() {
    valid(
        "hostname",
        &[
            "localhost",
            "example.com",
            "a.b.example.com",
            "xn--bcher-kva.example",
            "bücher.de",
            "a-b.example.com",
            "my-host.example.com",
            // Without a dot, upstream's pattern allows one '-' only as the second character
            // (so `a-` and `a-bc` pass), and symbols count as letters.
            "a-",
            "a-bc",
            "a+b.com",
            &"a".repeat(63),
            &format!("{}.com", "a".repeat(63)),
        ],
    );
    invalid(
        "hostname",
        &[
            "",
            "example.com.",
            ".example.com",
            "a.b",
            "1.2.3.4",
            "example.c0m",
            "-host",
            "my-host",
            "host-",
            "a--b",
            "a_b",
            "a..com",
            "host name",
            "-a.com",
            "a-.com",
            &format!("{}.com", "a".repeat(64)),
            // Too long overall though every label fits.
            &format!("{}com", format!("{}.", "a".repeat(63)).repeat(4)),
        ],
    );
}

#[test]
fn ipv4() {
    valid(
        "ipv4",
        &["192.168.0.1", "0.0.0.0", "255.255.255.255", "010.001.0.1", "0000000001.2.3.4", "::ffff:1.2.3.4", "1:2:3:4:5:6:1.2.3.4"],
    );
    invalid(
        "ipv4",
        &["", "256.0.0.1", "1.2.3", "1.2.3.4.5", "1..2.3", "1.2.3.4 ", "::1", "2001:db8::1", "a.b.c.d", "1.2.3.-4", "16777215.1.1.1"],
    );
}

#[test]
fn ipv6() {
    valid(
        "ipv6",
        &[
            "::",
            "::1",
            "2001:db8::1",
            "2001:0db8:0000:0000:0000:ff00:0042:8329",
            "FE80::1",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1::",
            "1:2:3:4:5:6:7:8",
            "::1.2.3.4",
        ],
    );
    invalid(
        "ipv6",
        &[
            "",
            "1.2.3.4",
            "fe80::1%eth0",
            "02001:db8::1",
            "::ffff:01.2.3.4",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7",
            "1::2::3",
            ":1::",
            "1:",
            "::1:",
            "1:2:3:4:5:6:7::8",
            "1:2:3:4:5:6:7:8::",
            "g::1",
            "[::1]",
        ],
    );
}

#[test]
fn cidr() {
    valid("cidr", &["10.0.0.0/8", "10.0.0.1/32", "0.0.0.0/0", "010.0.0.0/08", "2001:db8::/32", "::/0", "::1/128", "::ffff:1.2.3.4/120"]);
    invalid(
        "cidr",
        &["10.0.0.0", "10.0.0.0/33", "10.0.0.0/", "2001:db8::/129", "10.0.0.0/8/8", "10.0.0.0/-1", "10.0.0.0/ 8", "/8", "host/8"],
    );
}

#[test]
fn mac() {
    valid(
        "mac",
        &[
            "00:00:5e:00:53:01",
            "00-00-5E-00-53-01",
            "0000.5e00.5301",
            "02:00:5e:10:00:00:00:01",
            "0200.5e10.0000.0001",
            "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01",
            "0000.0000.fe80.0000.0000.0000.0200.5e10.0000.0001",
        ],
    );
    invalid(
        "mac",
        &[
            "",
            "00:00:5e:00:53",
            "00:00:5e:00:53:01:02",
            "00:00:5e-00:53:01",
            "00:00:5e:00:53:0g",
            "0:00:5e:00:53:01:0",
            "0000.5e00-5301",
            "00005e005301",
            "00:00:5e:00:53:01:",
            "0000.5e00.5301.ab",
        ],
    );
}

#[test]
fn uri() {
    valid(
        "uri",
        &[
            "http://example.com",
            "https://example.com:8443/path?q=1",
            "http://user:pass@example.com/",
            "http://[::1]:80/",
            "http://[fe80::1%25en0]/",
            "http://[::ffff:1.2.3.4]/",
            "mailto:someone@example.com",
            "urn:isbn:0451450523",
            "/absolute/path",
            "*",
            "http://example.com/#fragment",
            "http://example.com/a%20b",
            "ftp:///no-host",
            "http://example.com:/",
            "s3://bucket/key",
        ],
    );
    invalid(
        "uri",
        &[
            "",
            "example.com",
            "relative/path",
            ":foo",
            "http://example.com#fragment",
            "http://exa mple.com/",
            "http://example.com:port/",
            "http://example.com/%zz",
            "http://example.com/%2",
            "http://[::1/",
            "http://[1.2.3.4]/",
            "http://a[::1]/",
            "http://example.com/\n",
            "http://ex%41mple.com/",
            "http://us er@example.com/",
        ],
    );
}

#[test]
fn email() {
    valid(
        "email",
        &[
            "user@example.com",
            "first.last+tag@sub.example.co",
            "user@localhost",
            "User Name <user@example.com>",
            "\"User Name\" <user@example.com>",
            "<user@example.com>",
            "user@example.com (User Name)",
            "\"quoted local\"@example.com",
            "  user@example.com  ",
            "team: user@example.com;",
            "user@[192.168.0.1]",
            "user@[IPv6:2001:db8::1]",
            "jörg@bücher.de",
        ],
    );
    invalid(
        "email",
        &[
            "",
            "user",
            "user@",
            "@example.com",
            "user@@example.com",
            "user@exa mple.com",
            ".user@example.com",
            "user.@example.com",
            "us..er@example.com",
            "user@example..com",
            "User Name user@example.com",
            "<user@example.com",
            "a@b.c, d@e.f",
            "team:;",
            "team: a@b.c, d@e.f;",
            "\"\"@example.com",
            "user@[not an ip]",
            "user@example.com (unclosed",
            "=?koi8-r?q?x?= <user@example.com>",
        ],
    );
    // Known charsets and malformed encoded words are fine as display names.
    valid("email", &["=?utf-8?q?J=C3=B6rg?= <user@example.com>", "=?koi8-r?x?x?= <user@example.com>"]);
}

#[test]
fn isbn() {
    valid("isbn10", &["0321751043", "0-321-75104-3", "080442957X", "0 8044 2957 X"]);
    invalid("isbn10", &["0321751044", "032175104", "080442957x", "9780321751041"]);
    valid("isbn13", &["9780321751041", "978-0-321-75104-1", "978 0321751041"]);
    invalid("isbn13", &["9780321751042", "978032175104", "0321751043"]);
    valid("isbn", &["0321751043", "978-0321751041"]);
    invalid("isbn", &["0321751044", "abc", ""]);
}

#[test]
fn credit_card() {
    valid(
        "creditcard",
        &[
            "4111111111111111",
            "4111-1111-1111-1111",
            "4111 1111 1111 1111",
            "5500000000000004",
            "340000000000009",
            "6011000000000004",
            "30000000000004",
            "x4111111111111111y",
        ],
    );
    invalid("creditcard", &["4111111111111112", "1234567812345678", "", "4111"]);
}

#[test]
fn ssn() {
    valid("ssn", &["123-45-6789", "123 45 6789", "123-45 6789"]);
    invalid("ssn", &["123456789", "12-345-6789", "123-45-678a", "123--45-6789", "123-456789 "]);
}

#[test]
fn colors() {
    valid("hexcolor", &["#fff", "#FFFFFF", "abc", "a1B2c3"]);
    invalid("hexcolor", &["#ffff", "#gggggg", "##fff", "", "#fffffff"]);
    valid("rgbcolor", &["rgb(0,0,0)", "rgb(255, 255, 255)", "rgb( 1 ,22, 199 )"]);
    invalid("rgbcolor", &["rgb(256,0,0)", "rgb(0,0)", "RGB(0,0,0)", "rgb(00,0,0)", "rgba(0,0,0,0)", "rgb(-1,0,0)"]);
}

#[test]
fn bson_object_id() {
    valid("bsonobjectid", &["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011"]);
    invalid("bsonobjectid", &["507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g", ""]);
}

#[test]
fn kubernetes_names() {
    valid("k8s-short-name", &["a", "my-name", "0abc", &"a".repeat(63)]);
    invalid("k8s-short-name", &["", "My-name", "-a", "a-", "a.b", &"a".repeat(64)]);
    valid("k8s-long-name", &["a", "a.b", "example.com", &"a".repeat(253), &format!("{}.b", "a".repeat(100))]);
    invalid("k8s-long-name", &["", "A.b", "a..b", "a.", &"a".repeat(254)]);
}

#[test]
fn password() {
    valid("password", &["", "hunter2", "anything \n at all"]);
}
