"""A local AWS for the AWS provider's tests: moto behind a small proxy that judges every request and injects faults.

`python3 aws_emulator.py` starts moto (`python3 -m moto.server`) on 127.0.0.1, listens on a free port of its own and
prints `AWS emulator listening on http://127.0.0.1:PORT`. A test points its client at that address for every service.
Each request is
  - judged by botocore, independently of the client under test (../shared/aws/oracle beside the repository): its SigV4
    signature against the credentials the test registered, its X-Amz-Date within 5 minutes, its parameters against the
    operation's model (a rest-json request's operation found by its method and path, its parameters read from the
    path, query and body, and serialized back by botocore to what was sent). A request that fails is answered HTTP
    400 `EmulatorRejected` in its protocol's error format and its problems are kept for the test to read;
  - recorded as {service, action, params, access_key} for the test to count (access_key: the signing key's id, which
    tells one principal's calls from another's);
  - held for as long as matching delay rules say, then answered by the first matching fault rule, else forwarded
    byte for byte to moto (a CreateFleet's instances then put in their launch template's security groups, as EC2
    launches them and moto does not).
Temporary keys STS hands out (moto's AssumeRoleWithWebIdentity and AssumeRole answers) are learnt as they pass, so a
process that gets its credentials from STS signs calls the emulator can check.
The test drives it under /_emulator/ with JSON: POST reset, POST credentials, POST rules, GET calls, GET problems
(tests/cloud/aws/aws_emulator.h wraps these). Rules, in the order added, each with an optional "times":
  {"kind": "error", "service", "action", "status", "code", "message"}        an error in the protocol's wire format
  {"kind": "insufficient_capacity", "offerings": [{"instance_type", "zone", "capacity_type"}], "code", "message"}
      CreateFleet: the matching overrides are taken out of the request and come back as errorSet items
  {"kind": "stub", "service", "action", "body": {...}}                       a JSON-protocol answer moto cannot give
  {"kind": "ssm_parameter", "name", "value"}                                 ssm GetParameter of that name
  {"kind": "delay", "service", "action", "seconds"}    holds the answer that long (a slow CreateFleet, to kill the
      caller while it waits); the request is recorded at once, then answered as without the rule (the first
      matching delay rule only)
Stops (and stops moto) on SIGTERM or when its parent process dies.
"""
import datetime
import http.client
import http.server
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from functools import lru_cache
from pathlib import Path
from xml.sax.saxutils import escape

ORACLE = Path(__file__).resolve().parents[4] / '..' / 'shared' / 'aws' / 'oracle'
if not (ORACLE / 'sigv4_verify.py').exists() or not (ORACLE / 'query_oracle.py').exists():
    sys.exit(f'aws_emulator: the botocore judges are missing: {ORACLE.resolve()}/sigv4_verify.py and query_oracle.py '
             '(the repository must sit beside shared/)')
sys.path.insert(0, str(ORACLE))
import botocore.session  # noqa: E402
from botocore.auth import SigV4Auth  # noqa: E402
from botocore.awsrequest import AWSRequest  # noqa: E402
from botocore.credentials import Credentials  # noqa: E402
from botocore.parsers import create_parser  # noqa: E402
from botocore.serialize import create_serializer  # noqa: E402
from botocore.validate import ParamValidator  # noqa: E402
from query_oracle import check_request, check_response, op_model  # noqa: E402
from sigv4_verify import AUTH_RE, verify_sigv4  # noqa: E402

DEFAULT_CREDENTIALS = {'AKIDEXAMPLE': ('wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', None)}
EC2_XMLNS = 'http://ec2.amazonaws.com/doc/2016-11-15/'
CLOCK_SKEW = datetime.timedelta(minutes=5)   # AWS refuses a request whose X-Amz-Date is further from now
HOP_HEADERS = {'connection', 'transfer-encoding', 'content-length', 'server', 'date', 'keep-alive'}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.credentials = dict(DEFAULT_CREDENTIALS)
        self.rules, self.calls, self.problems = [], [], []

    def clear(self):
        with self.lock:
            self.rules, self.calls, self.problems = [], [], []

    def take_rule(self, matches):
        """The first rule `matches` accepts, its `times` spent by one; None when no rule matches."""
        with self.lock:
            for rule in self.rules:
                if rule.get('times', 1) > 0 and matches(rule):
                    if 'times' in rule:
                        rule['times'] -= 1
                    return dict(rule)
        return None

    def problem(self, service, action, what, canonical_request=None):
        with self.lock:
            self.problems.append({'service': service, 'action': action, 'problem': what,
                                  'canonical_request': canonical_request})


STATE = State()
MOTO = {'port': None, 'process': None}
BOTOCORE = botocore.session.get_session()


# ---- rest-json: the operation is in the method and the path -------------------------------------------------------

@lru_cache(maxsize=None)
def rest_json_model(service):
    """The botocore model of `service` when it speaks rest-json (EKS), else None."""
    try:
        model = BOTOCORE.get_service_model(service)
    except Exception:  # botocore's UnknownServiceError
        return None
    return model if model.metadata.get('protocol') == 'rest-json' else None


def uri_pattern(request_uri):
    """A regular expression for a requestUri's path: {label} is one segment, {label+} any number."""
    out, at = '^', 0
    for m in re.finditer(r'\{([^}+]+)(\+?)\}', request_uri):
        out += re.escape(request_uri[at:m.start()]) + (f'(?P<{m[1]}>.+)' if m[2] else f'(?P<{m[1]}>[^/]+)')
        at = m.end()
    return re.compile(out + re.escape(request_uri[at:]) + '$')


def rest_operation(model, method, path):
    """(operation model, {label: value as sent}) of the operation `method` and `path` (without query) name."""
    for name in model.operation_names:
        op = model.operation_model(name)
        if op.http.get('method') != method:
            continue
        if m := uri_pattern(op.http.get('requestUri', '').split('?')[0]).match(path):
            return op, m.groupdict()
    return None, {}


def rest_params(op, labels, query, headers, body):
    """The operation's input as botocore's client would have been given it, read from where each member travels;
    with the query parameters and body members no member claims."""
    params, used_query = {}, set()
    body_value = json.loads(body) if body else {}
    unknown_body = set(body_value) if isinstance(body_value, dict) else set()
    for name, member in (op.input_shape.members.items() if op.input_shape else []):
        where = member.serialization.get('location')
        wire = member.serialization.get('name', name)
        if where == 'uri' and wire in labels:
            params[name] = urllib.parse.unquote(labels[wire])
        elif where == 'querystring' and wire in query:
            used_query.add(wire)
            values = query[wire]
            params[name] = values if member.type_name == 'list' else values[0]
            if member.type_name in ('integer', 'long'):
                params[name] = int(params[name])
            elif member.type_name == 'boolean':
                params[name] = params[name] == 'true'
        elif where == 'header' and wire.lower() in headers:
            params[name] = headers[wire.lower()]
        elif where is None and isinstance(body_value, dict) and wire in body_value:
            params[name] = body_value[wire]
            unknown_body.discard(wire)
    return params, sorted(set(query) - used_query), sorted(unknown_body)


# ---- the request as it arrived ------------------------------------------------------------------------------------

class Call:
    """One request: where it goes (service, region, action), in which protocol, and its parameters."""

    def __init__(self, method, path, headers, body):
        self.method, self.path, self.headers, self.body = method, path, headers, body
        self.header = {k.lower(): v for k, v in headers}
        auth = AUTH_RE.match(self.header.get('authorization', ''))
        self.signed = auth is not None
        self.access_key = auth.group(1) if auth else None
        self.region = auth.group(3) if auth else 'us-east-1'
        target = self.header.get('x-amz-target')
        rest = None if target or self.header.get('content-type', '').startswith('application/x-www-form-urlencoded') \
            else rest_json_model(auth.group(4)) if auth else None
        self.operation, self.unclaimed = None, []
        if target:
            self.protocol = 'json'
            self.action = target.rsplit('.', 1)[-1]
            try:
                self.params = json.loads(body or b'{}')
            except ValueError:
                self.params = None
        elif rest is not None:
            self.protocol = 'rest-json'
            url = urllib.parse.urlsplit(path)
            self.operation, labels = rest_operation(rest, method, url.path)
            self.action = self.operation.name if self.operation else ''
            self.params = None
            if self.operation:
                try:
                    self.params, query, members = rest_params(self.operation, labels,
                                                              urllib.parse.parse_qs(url.query, keep_blank_values=True),
                                                              self.header, body)
                    self.unclaimed = [f'unknown query parameter {q}' for q in query] + \
                        [f'unknown body member {m}' for m in members]
                except ValueError as e:
                    self.unclaimed = [f'body is not JSON: {e}']
        else:
            self.params = dict(urllib.parse.parse_qsl(body.decode('utf-8', 'replace'), keep_blank_values=True))
            self.action = self.params.get('Action', '')
        self.service = auth.group(4) if auth else ('sts' if self.action.startswith('AssumeRoleWith') else 'unsigned')
        if not target and rest is None:
            self.protocol = 'ec2' if self.service == 'ec2' else 'query'

    def judge(self):
        """What is wrong with this request, as (problem, canonical request) pairs; empty when botocore agrees."""
        found = []
        if self.signed:
            with STATE.lock:
                secrets = dict(STATE.credentials)
            url = 'http://' + self.header.get('host', '127.0.0.1') + self.path
            ok, reason, canonical = verify_sigv4(self.method, url, self.headers, self.body, secrets)
            if not ok:
                found.append((f'SigV4: {reason}', canonical))
            token = secrets.get(AUTH_RE.match(self.header['authorization']).group(1), (None, None))[1]
            if token is not None and self.header.get('x-amz-security-token') != token:
                found.append(('X-Amz-Security-Token missing or not the session token of this access key', None))
            try:
                stamp = datetime.datetime.strptime(self.header.get('x-amz-date', ''), '%Y%m%dT%H%M%SZ')
                if abs(stamp.replace(tzinfo=datetime.timezone.utc) - datetime.datetime.now(datetime.timezone.utc)) \
                        > CLOCK_SKEW:
                    found.append((f"X-Amz-Date {self.header['x-amz-date']} is more than 5 minutes from now", None))
            except ValueError:
                found.append((f"X-Amz-Date missing or malformed: {self.header.get('x-amz-date')!r}", None))
        elif not (self.service == 'sts' and self.action == 'AssumeRoleWithWebIdentity'):
            return [('unsigned request (only sts AssumeRoleWithWebIdentity may be)', None)]
        if self.protocol == 'rest-json':
            return found + self._judge_rest_json()
        try:
            op = op_model(self.service, self.action)
        except Exception:  # botocore's UnknownServiceError / OperationNotFoundError
            return found + [(f'no operation {self.service}:{self.action!r} in botocore\'s model', None)]
        if self.protocol == 'json':
            found += self._judge_json(op)
        else:
            try:
                _, problems = check_request(self.service, self.body)
            except Exception as e:  # a body that is no form at all
                problems = [f'undecodable form body: {e}']
            found += [(p, None) for p in problems if not p.startswith('warning:')]
        return found

    def _judge_rest_json(self):
        """The operation its method and path name, its parameters valid, and botocore's serialization of them the
        request that arrived: the same path (labels percent-encoded as botocore encodes them), query and body."""
        if self.operation is None:
            return [(f'no {self.service} operation answers {self.method} {self.path}', None)]
        found = [(p, None) for p in self.unclaimed]
        if self.params is None:
            return found
        report = ParamValidator().validate(self.params, self.operation.input_shape)
        if report.has_errors():
            return found + [(report.generate_report(), None)]
        expected = create_serializer('rest-json').serialize_to_request(self.params, self.operation)
        url = urllib.parse.urlsplit(self.path)
        if expected['url_path'] != url.path:
            found.append((f"path {url.path!r} is not botocore's {expected['url_path']!r}", None))
        query = {k: v if len(v) > 1 else v[0] for k, v in urllib.parse.parse_qs(url.query).items()}
        if {k: v for k, v in expected['query_string'].items()} != query:
            found.append((f"query {query!r} is not botocore's {expected['query_string']!r}", None))
        sent = json.loads(self.body) if self.body else None
        wanted = json.loads(expected['body']) if expected['body'] else None
        if sent != wanted:
            found.append((f'body {sent!r} is not botocore\'s {wanted!r}', None))
        if self.body and not self.header.get('content-type', '').startswith('application/json'):
            found.append((f"Content-Type {self.header.get('content-type')!r} is not 'application/json'", None))
        return found

    def _judge_json(self, op):
        meta = op.service_model.metadata
        found = []
        prefix = self.header['x-amz-target'].rsplit('.', 1)[0]
        if prefix != meta.get('targetPrefix'):
            found.append((f"X-Amz-Target prefix {prefix!r} is not {meta.get('targetPrefix')!r}", None))
        content_type = f"application/x-amz-json-{meta.get('jsonVersion', '1.1')}"
        if not self.header.get('content-type', '').startswith(content_type):
            found.append((f"Content-Type {self.header.get('content-type')!r} is not {content_type!r}", None))
        if not isinstance(self.params, dict):
            return found + [('body is not a JSON object', None)]
        report = ParamValidator().validate(self.params, op.input_shape)
        if report.has_errors():
            found.append((report.generate_report(), None))
        return found


# ---- answers in each protocol's wire format -----------------------------------------------------------------------

def esc(text):
    return escape(str(text))


def error_answer(call, status, code, message, sender=None):
    """(status, headers, body) of an error as the call's protocol writes one (research §3.1)."""
    request_id = str(uuid.uuid4())
    if call.protocol == 'rest-json':  # the code in a header, as EKS writes it
        return status, {'Content-Type': 'application/json', 'x-amzn-RequestId': request_id,
                        'x-amzn-ErrorType': code}, json.dumps({'message': message}).encode()
    if call.protocol == 'json':
        content_type = call.header.get('content-type', 'application/x-amz-json-1.1').split(';')[0]
        return status, {'Content-Type': content_type, 'x-amzn-RequestId': request_id}, \
            json.dumps({'__type': code, 'message': message}).encode()
    if call.protocol == 'ec2':
        body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error><Code>{esc(code)}</Code>'
                f'<Message>{esc(message)}</Message></Error></Errors><RequestID>{request_id}</RequestID></Response>')
    else:
        kind = sender or ('Sender' if status < 500 else 'Receiver')
        body = (f'<ErrorResponse><Error><Type>{kind}</Type><Code>{esc(code)}</Code><Message>{esc(message)}</Message>'
                f'</Error><RequestId>{request_id}</RequestId></ErrorResponse>')
    return status, {'Content-Type': 'text/xml'}, body.encode()


def json_answer(body):
    return 200, {'Content-Type': 'application/x-amz-json-1.1', 'x-amzn-RequestId': str(uuid.uuid4())}, \
        json.dumps(body).encode()


def self_check(call, answer):
    """Parses an answer the emulator wrote itself as an SDK would; a failure is the emulator's problem, recorded."""
    status, headers, body = answer
    try:
        if call.protocol in ('json', 'rest-json'):
            lower = {k.lower(): v for k, v in headers.items()} if call.protocol == 'rest-json' else {}
            parsed = create_parser(call.protocol).parse({'status_code': status, 'headers': lower, 'body': body},
                                                        op_model(call.service, call.action).output_shape)
            unknown = []
        else:
            parsed, unknown = check_response(call.service, call.action, body, status)
        if status >= 300 and 'Code' not in parsed.get('Error', {}):
            unknown.append('no error code parsed')
        if unknown:
            STATE.problem('emulator', call.action, f'own answer has unknown elements {unknown}')
    except Exception as e:
        STATE.problem('emulator', call.action, f'own answer does not parse: {e}')
    return answer


# ---- moto ---------------------------------------------------------------------------------------------------------

def moto_request(method, path, body=b'', headers=None):
    connection = http.client.HTTPConnection('127.0.0.1', MOTO['port'], timeout=60)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        reply = connection.getresponse()
        return reply.status, [(k, v) for k, v in reply.getheaders() if k.lower() not in HOP_HEADERS], reply.read()
    finally:
        connection.close()


def forward(call, body=None):
    headers = {}
    for k, v in call.headers:
        if k.lower() != 'content-length':
            headers[k] = v
    status, reply_headers, reply = moto_request(call.method, call.path, call.body if body is None else body, headers)
    return status, dict(reply_headers), reply


def moto_ec2(region, params):
    """(status, XML root) of an EC2 call of the emulator's own to moto, signed with a key of its own (moto does not
    check it); the test's calls do not record it."""
    request = AWSRequest(method='POST', url=f"http://127.0.0.1:{MOTO['port']}/",
                         data=urllib.parse.urlencode({**params, 'Version': '2016-11-15'}).encode(),
                         headers={'Content-Type': 'application/x-www-form-urlencoded; charset=utf-8'})
    SigV4Auth(Credentials('emulator', 'emulator'), 'ec2', region).add_auth(request)
    status, _, body = moto_request('POST', '/', request.body, dict(request.headers.items()))
    return status, ET.fromstring(body)


def subnet_zones(region):
    """{subnet id: zone} from moto."""
    _, root = moto_ec2(region, {'Action': 'DescribeSubnets'})
    return {item.findtext('{*}subnetId'): item.findtext('{*}availabilityZone')
            for item in root.iterfind('{*}subnetSet/{*}item')}


# ---- CreateFleet's instances in their launch template's security groups -------------------------------------------

def template_groups(region, template_id):
    """The security group ids a launch template's newest version names, directly or on its network interfaces."""
    status, root = moto_ec2(region, {'Action': 'DescribeLaunchTemplateVersions', 'LaunchTemplateId': template_id})
    if status != 200:
        return []
    versions = sorted(root.iterfind('{*}launchTemplateVersionSet/{*}item'),
                      key=lambda v: int(v.findtext('{*}versionNumber') or 0))
    if not versions:
        return []
    data = versions[-1].find('{*}launchTemplateData')
    return [e.text for e in data.iterfind('{*}securityGroupIdSet/*')] + \
        [e.text for e in data.iterfind('{*}networkInterfaceSet/*/{*}groupSet/*')]


def with_template_groups(call, reply):
    """EC2 launches a fleet's instances in their launch template's security groups; moto launches them in none, so
    each instance of a CreateFleet answer (status, headers, body) is put in its template's before the caller sees it."""
    status, _, body = reply
    if status != 200:
        return reply
    groups_of = {}
    for item in ET.fromstring(body).iterfind('{*}fleetInstanceSet/{*}item'):
        template = item.findtext('{*}launchTemplateAndOverrides/{*}launchTemplateSpecification/{*}launchTemplateId')
        if not template:
            continue
        if template not in groups_of:
            groups_of[template] = template_groups(call.region, template)
        groups = groups_of[template]
        for instance in item.iterfind('{*}instanceIds/*'):
            if not groups:
                continue
            params = {'Action': 'ModifyInstanceAttribute', 'InstanceId': instance.text}
            params.update({f'GroupId.{n}': group for n, group in enumerate(groups, 1)})
            if moto_ec2(call.region, params)[0] != 200:
                STATE.problem('emulator', call.action, f'could not put {instance.text} in its groups {groups}')
    return reply


# ---- CreateFleet with offerings out of capacity -------------------------------------------------------------------

OVERRIDE_RE = re.compile(r'LaunchTemplateConfigs\.(\d+)\.Overrides\.(\d+)\.(.+)')
CONFIG_RE = re.compile(r'LaunchTemplateConfigs\.(\d+)\.(LaunchTemplateSpecification\..+)')


def lower_camel(name):
    return name[:1].lower() + name[1:]


def insufficient_capacity(call, rule):
    form = urllib.parse.parse_qsl(call.body.decode(), keep_blank_values=True)
    rest, configs = [], {}
    for key, value in form:
        if m := OVERRIDE_RE.fullmatch(key):
            overrides = configs.setdefault(int(m[1]), {'spec': {}, 'overrides': {}})['overrides']
            overrides.setdefault(int(m[2]), {})[m[3]] = value
        elif m := CONFIG_RE.fullmatch(key):
            configs.setdefault(int(m[1]), {'spec': {}, 'overrides': {}})['spec'][m[2]] = value
        else:
            rest.append((key, value))
    capacity_type = call.params.get('TargetCapacitySpecification.DefaultTargetCapacityType', 'on-demand')
    zones = None
    errors, kept = [], []
    for number in sorted(configs):
        config = configs[number]
        remaining = []
        for _, override in sorted(config['overrides'].items()):
            zone = override.get('AvailabilityZone')
            if zone is None and 'SubnetId' in override:
                zones = zones if zones is not None else subnet_zones(call.region)
                zone = zones.get(override['SubnetId'])
            offering = {'instance_type': override.get('InstanceType'), 'zone': zone, 'capacity_type': capacity_type}
            if any(all(o.get(k, offering[k]) == offering[k] for k in offering) for o in rule.get('offerings', [])):
                errors.append((config['spec'], override, offering))
            else:
                remaining.append(override)
        if remaining:
            kept.append((config['spec'], remaining))
    if not errors:
        return forward(call)
    code = rule.get('code', 'InsufficientInstanceCapacity')
    items = ''.join(error_item(spec, override, offering, capacity_type, code, rule.get('message'))
                    for spec, override, offering in errors)
    if not kept:
        body = (f'<?xml version="1.0" encoding="UTF-8"?>\n<CreateFleetResponse xmlns="{EC2_XMLNS}">'
                f'<requestId>{uuid.uuid4()}</requestId><fleetId>fleet-{uuid.uuid4()}</fleetId>'
                f'<errorSet>{items}</errorSet><fleetInstanceSet/></CreateFleetResponse>')
        return self_check(call, (200, {'Content-Type': 'text/xml;charset=UTF-8'}, body.encode()))
    for c, (spec, overrides) in enumerate(kept, 1):
        rest += [(f'LaunchTemplateConfigs.{c}.{k}', v) for k, v in spec.items()]
        for o, override in enumerate(overrides, 1):
            rest += [(f'LaunchTemplateConfigs.{c}.Overrides.{o}.{k}', v) for k, v in override.items()]
    status, headers, reply = forward(call, urllib.parse.urlencode(rest, quote_via=urllib.parse.quote).encode())
    if status != 200:
        return status, headers, reply
    error_set = f'<errorSet>{items}</errorSet>'.encode()
    at = reply.find(b'<fleetInstanceSet')
    at = at if at >= 0 else reply.rfind(b'</CreateFleetResponse>')
    return self_check(call, (status, headers, reply[:at] + error_set + reply[at:]))


def error_item(spec, override, offering, capacity_type, code, message):
    """An errorSet item as EC2 writes one: the launch template and the override it could not fill (research §1.2)."""
    if message is None:
        message = (f"We currently do not have sufficient {offering['instance_type']} capacity in the Availability "
                   f"Zone you requested ({offering['zone']}). Our system will be working on provisioning additional "
                   "capacity.")
    def elements(fields):
        return ''.join(f'<{lower_camel(k)}>{esc(v)}</{lower_camel(k)}>' for k, v in fields.items() if '.' not in k)
    template = elements({k.split('.', 1)[1]: v for k, v in spec.items()})
    return (f'<item><launchTemplateAndOverrides><launchTemplateSpecification>{template}</launchTemplateSpecification>'
            f'<overrides>{elements(override)}</overrides></launchTemplateAndOverrides><lifecycle>{capacity_type}'
            f'</lifecycle><errorCode>{esc(code)}</errorCode><errorMessage>{esc(message)}</errorMessage></item>')


# ---- the server ---------------------------------------------------------------------------------------------------

def learn_credentials(call, reply):
    """Registers the temporary keys in an STS answer (status, headers, body), which it returns unchanged."""
    status, _, body = reply
    if call.action in ('AssumeRoleWithWebIdentity', 'AssumeRole') and status == 200:
        credentials = ET.fromstring(body).find('.//{*}Credentials')
        if credentials is not None:
            with STATE.lock:
                STATE.credentials[credentials.findtext('{*}AccessKeyId')] = (
                    credentials.findtext('{*}SecretAccessKey'), credentials.findtext('{*}SessionToken') or None)
    return reply


def answer(call):
    """(status, headers, body) for an AWS request: a rule's answer or moto's."""
    delay = STATE.take_rule(lambda rule: rule.get('kind') == 'delay' and rule.get('action') == call.action and
                            rule.get('service', call.service) == call.service)
    if delay is not None:
        time.sleep(float(delay.get('seconds', 0)))

    def matches(rule):
        kind = rule.get('kind')
        if kind in ('error', 'stub'):
            return rule.get('service', call.service) == call.service and rule.get('action') == call.action
        if kind == 'insufficient_capacity':
            return call.service == 'ec2' and call.action == 'CreateFleet'
        if kind == 'ssm_parameter':
            return call.service == 'ssm' and call.action == 'GetParameter' and \
                isinstance(call.params, dict) and call.params.get('Name') == rule.get('name')
        return False

    rule = STATE.take_rule(matches)
    if rule is None:
        reply = learn_credentials(call, forward(call))
        return with_template_groups(call, reply) if call.action == 'CreateFleet' else reply
    kind = rule['kind']
    if kind == 'error':
        return self_check(call, error_answer(call, rule.get('status', 400), rule['code'], rule.get('message', ''),
                                             rule.get('type')))
    if kind == 'stub':
        return self_check(call, json_answer(rule['body']))
    if kind == 'ssm_parameter':
        name = rule['name']
        return self_check(call, json_answer({'Parameter': {
            'Name': name, 'Type': 'String', 'Value': rule['value'], 'Version': 1, 'DataType': 'text',
            'LastModifiedDate': time.time(), 'ARN': f'arn:aws:ssm:{call.region}::parameter{name}'}}))
    return with_template_groups(call, insufficient_capacity(call, rule))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *args):
        sys.stderr.write('aws_emulator: ' + fmt % args + '\n')

    def do_GET(self):
        self.handle_any()

    def do_POST(self):
        self.handle_any()

    def do_PUT(self):
        self.handle_any()

    def do_DELETE(self):
        self.handle_any()

    def handle_any(self):
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        try:
            if self.path.startswith('/_emulator/'):
                reply = control(self.command, self.path[len('/_emulator/'):], body)
            else:
                reply = self.aws(body)
        except Exception as e:  # an emulator bug: say so rather than leave the client hanging
            reply = 500, {'Content-Type': 'text/plain'}, f'aws_emulator: {type(e).__name__}: {e}'.encode()
        status, headers, payload = reply
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def aws(self, body):
        call = Call(self.command, self.path, list(self.headers.items()), body)
        with STATE.lock:
            STATE.calls.append({'service': call.service, 'action': call.action, 'params': call.params,
                                'access_key': call.access_key, 'at': time.time()})
        problems = call.judge()
        for what, canonical in problems:
            STATE.problem(call.service, call.action, what, canonical)
        if problems:
            return error_answer(call, 400, 'EmulatorRejected', '; '.join(p for p, _ in problems))
        return answer(call)


def control(method, what, body):
    """The test's side: reset, credentials, rules, calls, problems."""
    def ok(value=None):
        return 200, {'Content-Type': 'application/json'}, json.dumps(value if value is not None else {}).encode()

    if method == 'POST' and what == 'reset':
        status, _, reply = moto_request('POST', '/moto-api/reset')
        STATE.clear()
        return ok() if status == 200 else (502, {'Content-Type': 'text/plain'}, reply)
    if method == 'POST' and what == 'credentials':
        with STATE.lock:
            for akid, entry in json.loads(body).items():
                STATE.credentials[akid] = (entry['secret'], entry.get('token') or None)
        return ok()
    if method == 'POST' and what == 'rules':
        rule = json.loads(body)
        if rule.get('kind') not in ('error', 'insufficient_capacity', 'stub', 'ssm_parameter', 'delay'):
            return 400, {'Content-Type': 'text/plain'}, f'unknown rule kind in {rule}'.encode()
        with STATE.lock:
            STATE.rules.append(rule)
        return ok()
    if method == 'GET' and what in ('calls', 'problems'):
        with STATE.lock:
            return ok(list(getattr(STATE, what)))
    return 404, {'Content-Type': 'text/plain'}, f'no control endpoint {method} /_emulator/{what}'.encode()


def start_moto():
    def die_with_us():  # moto goes when the emulator goes, even by SIGKILL
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    process = subprocess.Popen([sys.executable, '-m', 'moto.server', '-H', '127.0.0.1', '-p', '0'],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=die_with_us)
    MOTO['process'] = process
    for line in process.stderr:
        sys.stderr.write('moto: ' + line.decode(errors='replace'))
        if m := re.search(rb'Running on http://127\.0\.0\.1:(\d+)', line):
            MOTO['port'] = int(m[1])
            break
    if MOTO['port'] is None:
        sys.exit('aws_emulator: moto exited before it listened (python3 -m moto.server)')
    threading.Thread(target=lambda: [sys.stderr.write('moto: ' + line.decode(errors='replace'))
                                     for line in process.stderr], daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if moto_request('POST', '/moto-api/reset')[0] == 200:
                return
        except OSError:
            pass
        time.sleep(0.05)
    stop(1, 'aws_emulator: moto did not answer POST /moto-api/reset within 30 s')


def stop(code=0, why=None):
    process = MOTO['process']
    if process and process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
    if why:
        sys.stderr.write(why + '\n')
    sys.stderr.flush()
    os._exit(code)


def main():
    parent = os.getppid()
    signal.signal(signal.SIGTERM, lambda *_: stop())
    signal.signal(signal.SIGINT, lambda *_: stop())
    start_moto()
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    server.daemon_threads = True

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        stop(0, 'aws_emulator: parent process gone, stopping')
    threading.Thread(target=watch_parent, daemon=True).start()
    print(f'AWS emulator listening on http://127.0.0.1:{server.server_address[1]}', flush=True)
    server.serve_forever()


if __name__ == '__main__':
    main()
