--- End-to-end test of crdls in a real Neovim, 0.7 to 0.11+: one script, features detected at run time.
---
--- Run as `CRDLS_BIN=target/release/crdls nvim --headless --clean -u NONE -c 'luafile e2e.lua'`
--- (run.sh does, for each Neovim and mode it tests). It builds a workspace in a temporary directory
--- (the Widget CRD from fixtures/crds, a crdls.toml and a custom resource with known errors), starts
--- crdls the way a user would, by CRDLS_E2E_MODE: `config` (editors/neovim/lsp/crdls.lua with
--- vim.lsp.enable, Neovim 0.11+, the default there) or `snippet` (the FileType snippet of
--- docs/src/editors/neovim.md, the default before 0.11). It then checks diagnostics, an edit,
--- completion, hover and definition; then opens a custom resource in a second temporary directory,
--- outside any project (no crdls.toml or .git), and checks that crdls gets that directory as its
--- root and finds the CRD beside the file. It prints one line per check, and exits 0 if all pass,
--- else 1.

local TIMEOUT_MS = tonumber(os.getenv('CRDLS_E2E_TIMEOUT_MS') or '') or 20000

local failures = 0

local function say(line)
  io.stderr:write(line .. '\n')
end

local function check(ok, what, detail)
  if ok then
    say('  ok   ' .. what)
  else
    failures = failures + 1
    say('  FAIL ' .. what .. (detail and ('\n       ' .. detail:gsub('\n', '\n       ')) or ''))
  end
  return ok
end

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function write_file(path, text)
  local f = assert(io.open(path, 'wb'))
  f:write(text)
  f:close()
end

-- The repository root, from this script's own path (tests/e2e/neovim/e2e.lua).
local script = debug.getinfo(1, 'S').source:gsub('^@', '')
local repo = vim.fn.fnamemodify(script, ':p:h:h:h:h')
local bin = os.getenv('CRDLS_BIN') or (repo .. '/target/release/crdls')

-- Neovim's own names for what moved between versions.
local has = {
  config = vim.lsp.config ~= nil and vim.lsp.enable ~= nil, -- 0.11
  start = vim.lsp.start ~= nil, -- 0.8
  get_clients = vim.lsp.get_clients ~= nil, -- 0.10
}

-- How crdls is configured: `config` or `snippet` (see open_with_crdls); the newest the version has.
local MODE = os.getenv('CRDLS_E2E_MODE') or (has.config and 'config' or 'snippet')

local function clients_of(buf)
  if has.get_clients then
    return vim.lsp.get_clients({ bufnr = buf, name = 'crdls' })
  end
  local found = {}
  for _, client in pairs(vim.lsp.buf_get_clients(buf)) do
    if client.name == 'crdls' then
      table.insert(found, client)
    end
  end
  return found
end

-- Server messages of type Error (1) or Warning (2), such as a settings value crdls cannot read.
local server_complaints = {}
local function on_log_message(_, result)
  if result and result.type <= 2 then
    table.insert(server_complaints, result.message)
  end
end

--- Builds the workspace: crds/widgets.yaml, crdls.toml and widget.yaml. Returns its directory.
local function make_workspace()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. '/crds', 'p')
  dir = vim.loop.fs_realpath(dir)
  write_file(dir .. '/crds/widgets.yaml', read_file(repo .. '/fixtures/crds/widgets.yaml'))
  -- The workspace's own settings: the lowest layer, read by the server from the root it is given.
  write_file(dir .. '/crdls.toml', table.concat({
    'debounceMs = 20',
    '[severity]',
    '"schema/unknown-field" = "info"',
    '',
  }, '\n'))
  write_file(dir .. '/widget.yaml', table.concat({
    '# A Widget with deliberate errors.', -- 0
    'apiVersion: demo.crdls.dev/v1', -- 1
    'kind: Widget', -- 2
    'metadata:', -- 3
    '  name: sample', -- 4
    'spec:', -- 5
    '  size: 15', -- 6: above the maximum (10)
    '  owner: Team_A', -- 7: does not match the pattern
    '  colour: red', -- 8: not in the schema
    '',
  }, '\n'))
  return dir
end

--- The nearest directory at or above `dir` holding crdls.toml or .git, or nil.
local function project_root_of(dir)
  while true do
    if vim.loop.fs_stat(dir .. '/crdls.toml') or vim.loop.fs_stat(dir .. '/.git') then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

--- Builds a directory outside any project: the Thing CRD (fixtures/crds/things.json, a CRD kind
--- the workspace does not have) beside thing.yaml, a Thing with an error, and no crdls.toml or
--- .git. Returns its directory.
local function make_loose_directory()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, 'p')
  dir = vim.loop.fs_realpath(dir)
  write_file(dir .. '/things.json', read_file(repo .. '/fixtures/crds/things.json'))
  write_file(dir .. '/thing.yaml', table.concat({
    '# A Thing outside any project, with a deliberate error.', -- 0
    'apiVersion: demo.crdls.dev/v2', -- 1
    'kind: Thing', -- 2
    'metadata:', -- 3
    '  name: loose', -- 4
    'spec:', -- 5
    '  count: 2000000', -- 6: above the maximum (1000000)
    '',
  }, '\n'))
  return dir
end

-- The settings the client sends: they make schema/pattern a warning, which only these can do here.
local SETTINGS_LUA = "{ crdls = { severity = { ['schema/pattern'] = 'warning' } } }"

--- The documented plugin-free snippet for Neovim 0.7 to 0.10 (docs/src/editors/neovim.md), with `cmd`
--- pointing at CRDLS_BIN and the test's settings in place of the empty ones; an error if the page no
--- longer matches.
--- The lua block after `marker` in docs/src/editors/neovim.md; an error if there is none.
local function docs_block(marker)
  local readme = read_file(repo .. '/docs/src/editors/neovim.md')
  local at = assert(readme:find(marker, 1, true), 'marker not found in docs/src/editors/neovim.md: ' .. marker)
  return assert(readme:match('```lua\n(.-)\n```', at), 'no lua block after the marker ' .. marker)
end

local function readme_snippet()
  local code = docs_block('<!-- e2e: the next lua block is run by tests/e2e/neovim/e2e.lua, from docs/src/editors/neovim.md -->')
  local function replace_once(old, new)
    local first = code:find(old, 1, true)
    assert(first and not code:find(old, first + 1, true), 'expected once in the snippet: ' .. old)
    code = code:sub(1, first - 1) .. new .. code:sub(first + #old)
  end
  replace_once("cmd = { 'crdls' },", 'cmd = { ' .. string.format('%q', bin) .. ' },')
  replace_once('settings = { crdls = vim.empty_dict() },', 'settings = ' .. SETTINGS_LUA .. ',')
  return code
end

--- Opens `file` with crdls attached the way a user would, by `mode`: `config` (Neovim 0.11+:
--- editors/neovim/lsp/crdls.lua found on 'runtimepath', vim.lsp.enable) or `snippet` (the documented
--- FileType autocommand, which uses vim.lsp.start or, on 0.7, vim.lsp.start_client).
local function open_with_crdls(file, mode)
  -- Server log messages are collected whichever way the client was configured.
  vim.lsp.handlers['window/logMessage'] = on_log_message
  vim.cmd('filetype on')
  local how
  if mode == 'config' then
    assert(has.config, 'mode "config" needs Neovim 0.11 or later')
    vim.opt.runtimepath:prepend(repo .. '/editors/neovim')
    local settings = (loadstring or load)('return ' .. SETTINGS_LUA)()
    vim.lsp.config('crdls', { cmd = { bin }, settings = settings })
    vim.lsp.enable('crdls')
    how = "lsp/crdls.lua on 'runtimepath', vim.lsp.enable"
  elseif mode == 'snippet' then
    assert((loadstring or load)(readme_snippet(), '=docs/src/editors/neovim.md'))()
    how = "the documented FileType snippet, " .. (has.start and 'vim.lsp.start' or 'vim.lsp.start_client')
  else
    error('unknown CRDLS_E2E_MODE: ' .. tostring(mode))
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  return vim.api.nvim_get_current_buf(), how
end

local SEVERITY = { 'ERROR', 'WARN', 'INFO', 'HINT' }

--- One line per diagnostic, sorted: `line:col severity code message` (0-based, as Neovim stores
--- them), with the message's own line breaks (before `API server: <cause>`) shown as ` | `.
local function diagnostics_of(buf)
  local lines = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code) or '?'
    local message = d.message:gsub('\n', ' | ')
    table.insert(lines, string.format('%d:%d %s %s %s', d.lnum, d.col, SEVERITY[d.severity] or '?', code, message))
  end
  table.sort(lines)
  return table.concat(lines, '\n')
end

--- Waits until the buffer's diagnostics are exactly `expected`; checks and returns whether they were.
local function expect_diagnostics(buf, expected, what)
  local want = table.concat(expected, '\n')
  local got
  vim.wait(TIMEOUT_MS, function()
    got = diagnostics_of(buf)
    return got == want
  end, 20)
  return check(got == want, what, 'expected:\n' .. want .. '\ngot:\n' .. (got == '' and '(none)' or got))
end

--- Sends a request at (line, character) and returns the crdls result, or nil and an error text.
local function request(buf, method, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local responses, err = vim.lsp.buf_request_sync(buf, method, params, TIMEOUT_MS)
  if not responses then
    return nil, tostring(err)
  end
  for _, response in pairs(responses) do
    if response.error then
      return nil, vim.inspect(response.error)
    end
    return response.result
  end
  return nil, 'no response'
end

local function completion_labels(buf, line, character)
  local result, err = request(buf, 'textDocument/completion', line, character)
  local items = result and (result.items or result) or {}
  local labels = {}
  for _, item in ipairs(items) do
    labels[item.label] = true
  end
  return labels, err
end

local function sorted_keys(set)
  local keys = vim.tbl_keys(set)
  table.sort(keys)
  return table.concat(keys, ', ')
end

local PATTERN = "7:9 WARN schema/pattern must match the pattern '^[a-z][a-z0-9-]*$'"
  .. " | API server: spec.owner: Invalid value: \"Team_A\": spec.owner in body should match '^[a-z][a-z0-9-]*$'"
local UNKNOWN = '8:2 INFO schema/unknown-field unknown field "spec.colour" would be pruned: it is not in the schema'
  .. ' | API server: unknown field "spec.colour"'

--- Waits until a crdls client is attached to `buf` and initialized; returns it, or nil.
local function wait_for_client(buf)
  local client
  vim.wait(TIMEOUT_MS, function()
    client = clients_of(buf)[1]
    return client ~= nil and client.initialized ~= false
  end, 20)
  return client
end

--- The local paths of a client's workspace folders, joined by ', ' (nil if it has none).
local function workspace_folders_of(client)
  local folders = client.workspace_folders
  if not folders then
    return nil
  end
  local paths = {}
  for _, folder in ipairs(folders) do
    table.insert(paths, vim.loop.fs_realpath(vim.uri_to_fname(folder.uri)) or folder.uri)
  end
  return table.concat(paths, ', ')
end

--- Opens a custom resource outside any project, in the Neovim where crdls already runs for the
--- workspace: crdls must start again with the file's directory as its root and workspace folder,
--- index the CRD beside the file, and check the resource against it.
local function check_file_outside_any_project()
  local dir = make_loose_directory()
  local above = project_root_of(dir)
  if not check(above == nil, 'precondition: no crdls.toml or .git at or above ' .. dir,
      'found one in ' .. tostring(above) .. ' (set TMPDIR to a directory outside any project)') then
    return
  end
  vim.cmd('edit ' .. vim.fn.fnameescape(dir .. '/thing.yaml'))
  local buf = vim.api.nvim_get_current_buf()
  local client = wait_for_client(buf)
  if not check(client ~= nil, 'outside any project: crdls attached to the buffer') then
    return
  end
  local client_root = client.config.root_dir and vim.loop.fs_realpath(client.config.root_dir)
  check(client_root == dir, "outside any project: root_dir is the file's directory",
    'got ' .. tostring(client.config.root_dir))
  local folders = workspace_folders_of(client)
  check(folders == dir, "outside any project: the workspace folder is the file's directory",
    'got ' .. tostring(folders))
  expect_diagnostics(buf, {
    '6:9 ERROR schema/maximum must be less than or equal to 1000000'
      .. ' | API server: spec.count: Invalid value: 2000000: spec.count in body should be less than or equal to 1000000',
  }, 'outside any project: diagnostics from the CRD beside the file')
end

--- The documented per-project trust recipe (docs/src/editors/neovim.md, "Workspace trust"; Neovim
--- 0.11: vim.lsp.config and vim.secure): two projects whose crdls.toml names the same CRD directory
--- outside them (`../shared-crds`, which only a trusted workspace may use), one allowed in Neovim's
--- trust list and one denied. The allowed one's Widget is checked against that CRD; the denied one's
--- is not, and crdls says which setting it left out.
local function check_trust_recipe()
  assert((loadstring or load)(docs_block(
    '<!-- e2e: the next lua block is run by tests/e2e/neovim/e2e.lua (trust), from docs/src/editors/neovim.md -->'),
    '=docs/src/editors/neovim.md (trust)'))()
  local base = vim.fn.tempname()
  vim.fn.mkdir(base .. '/shared-crds', 'p')
  base = vim.loop.fs_realpath(base)
  write_file(base .. '/shared-crds/widgets.yaml', read_file(repo .. '/fixtures/crds/widgets.yaml'))
  local trust_db = {}
  local function project(name, allowed)
    local dir = base .. '/' .. name
    vim.fn.mkdir(dir, 'p')
    local toml = 'crdPaths = ["../shared-crds"]\n'
    write_file(dir .. '/crdls.toml', toml)
    write_file(dir .. '/widget.yaml', table.concat({
      'apiVersion: demo.crdls.dev/v1', -- 0
      'kind: Widget', -- 1
      'metadata:', -- 2
      '  name: ' .. name, -- 3
      'spec:', -- 4
      '  size: 15', -- 5: above the maximum (10)
      '  owner: team-a', -- 6
      '',
    }, '\n'))
    -- What `:trust` (allow) and `:trust ++deny` write: the file's SHA-256, or '!'.
    table.insert(trust_db, (allowed and vim.fn.sha256(toml) or '!') .. ' ' .. dir .. '/crdls.toml')
    return dir
  end
  local allowed = project('allowed', true)
  local denied = project('denied', false)
  vim.fn.mkdir(vim.fn.stdpath('state'), 'p')
  write_file(vim.fn.stdpath('state') .. '/trust', table.concat(trust_db, '\n') .. '\n')
  local complaints_before = #server_complaints

  vim.cmd('edit ' .. vim.fn.fnameescape(allowed .. '/widget.yaml'))
  local buf = vim.api.nvim_get_current_buf()
  check(wait_for_client(buf) ~= nil, 'trust recipe: crdls attached in the allowed project')
  expect_diagnostics(buf, {
    '5:8 ERROR schema/maximum must be less than or equal to 10'
      .. ' | API server: spec.size: Invalid value: 15: spec.size in body should be less than or equal to 10',
  }, 'trust recipe: the allowed project uses the CRDs outside it')
  check(#server_complaints == complaints_before, 'trust recipe: nothing left out in the allowed project',
    table.concat(server_complaints, '\n', complaints_before + 1))

  vim.cmd('edit ' .. vim.fn.fnameescape(denied .. '/widget.yaml'))
  buf = vim.api.nvim_get_current_buf()
  check(wait_for_client(buf) ~= nil, 'trust recipe: crdls attached in the denied project')
  local got
  vim.wait(TIMEOUT_MS, function()
    got = diagnostics_of(buf)
    return got:find('resource/no-crd', 1, true) ~= nil
  end, 20)
  check(got:find('resource/no-crd', 1, true) ~= nil and not got:find('schema/maximum', 1, true),
    'trust recipe: the denied project does not use the CRDs outside it', 'got:\n' .. got)
  local said = table.concat(server_complaints, '\n', complaints_before + 1)
  check(said:find('not trusted', 1, true) ~= nil and said:find('shared-crds', 1, true) ~= nil,
    'trust recipe: crdls says it left ../shared-crds out in the denied project', 'logged:\n' .. said)
  -- Those were expected; the final check looks for others.
  for i = #server_complaints, complaints_before + 1, -1 do
    table.remove(server_complaints, i)
  end
end

local function run()
  local version = vim.version()
  say(string.format('Neovim %d.%d.%d, mode %s, crdls %s', version.major, version.minor, version.patch, MODE, bin))
  assert(vim.fn.executable(bin) == 1, 'not executable: ' .. bin .. ' (set CRDLS_BIN)')

  local root = make_workspace()
  local file = root .. '/widget.yaml'
  local buf, how = open_with_crdls(file, MODE)
  say('  crdls started by ' .. how .. ', workspace ' .. root)

  local client = wait_for_client(buf)
  if not check(client ~= nil, 'crdls attached to the buffer') then
    return
  end
  local client_root = client.config.root_dir and vim.loop.fs_realpath(client.config.root_dir)
  check(client_root == root, 'root_dir is the workspace', 'got ' .. tostring(client.config.root_dir))
  check(vim.bo[buf].filetype == 'yaml', 'filetype is yaml', 'got ' .. vim.bo[buf].filetype)

  -- The custom resource as opened: severities come from the crdls defaults (maximum), the client
  -- settings (pattern) and crdls.toml (unknown field).
  expect_diagnostics(buf, {
    '6:8 ERROR schema/maximum must be less than or equal to 10'
      .. ' | API server: spec.size: Invalid value: 15: spec.size in body should be less than or equal to 10',
    PATTERN,
    UNKNOWN,
  }, 'diagnostics on open (crdls defaults, client settings and crdls.toml)')

  -- Fix the size: its error goes, the others stay.
  vim.api.nvim_buf_set_lines(buf, 6, 7, false, { '  size: 5' })
  expect_diagnostics(buf, {
    PATTERN,
    UNKNOWN,
  }, 'diagnostics after fixing size: 15 -> 5')

  -- Key completion on a new line under spec: absent keys are offered, present ones are not.
  vim.api.nvim_buf_set_lines(buf, 9, 9, false, { '  ' })
  local labels, err = completion_labels(buf, 9, 2)
  check(labels.tier and labels.ratio and not labels.size and not labels.owner,
    'completion under spec: offers tier and ratio, not size or owner',
    'labels: ' .. (err or sorted_keys(labels)))

  -- Value completion of an enum.
  vim.api.nvim_buf_set_lines(buf, 9, 10, false, { '  tier: ' })
  labels, err = completion_labels(buf, 9, 8)
  check(labels.gold and labels.silver and labels.bronze, 'completion after tier: offers gold, silver, bronze',
    'labels: ' .. (err or sorted_keys(labels)))

  -- Hover on the owner key: the field path, its type and constraints.
  local hover
  hover, err = request(buf, 'textDocument/hover', 7, 3)
  local contents = hover and hover.contents
  local markdown = type(contents) == 'table' and (contents.value or '') or tostring(contents or '')
  check(markdown:find('spec.owner', 1, true) and markdown:find('string', 1, true)
      and markdown:find('^[a-z][a-z0-9-]*$', 1, true),
    'hover on owner: path spec.owner, type string, its pattern',
    err or ('hover: ' .. vim.inspect(hover)))

  -- Definition of the size key: its schema in crds/widgets.yaml.
  local definition
  definition, err = request(buf, 'textDocument/definition', 6, 3)
  local location = definition and (definition.uri and definition or definition[1])
  local target_uri = location and (location.uri or location.targetUri)
  local target_range = location and (location.range or location.targetSelectionRange)
  local target_line = ''
  if target_uri and target_range then
    local lines = vim.fn.readfile(vim.uri_to_fname(target_uri))
    target_line = lines[target_range.start.line + 1] or ''
  end
  check(target_uri and vim.uri_to_fname(target_uri) == root .. '/crds/widgets.yaml'
      and target_line:match('^%s*size:') ~= nil,
    'definition of size: its schema in crds/widgets.yaml',
    err or ('definition: ' .. vim.inspect(definition) .. '\nline: ' .. target_line))

  -- The refresh command: a buffer command from editors/neovim/lsp/crdls.lua, and the server's answer.
  if MODE == 'config' then
    local defined = vim.fn.exists(':CrdlsRefreshSources') == 2
    check(defined, ':CrdlsRefreshSources is defined for the buffer')
    if defined then
      vim.cmd('CrdlsRefreshSources')
    end
    local reply = client.request_sync('workspace/executeCommand', { command = 'crdls.refreshCrdSources' }, TIMEOUT_MS, buf)
    check(reply ~= nil and reply.err == nil, 'workspace/executeCommand crdls.refreshCrdSources is answered',
      vim.inspect(reply))
  end

  check_file_outside_any_project()

  if MODE == 'config' and vim.secure and vim.secure.read then
    check_trust_recipe()
  end

  check(#server_complaints == 0, 'no errors or warnings logged by crdls', table.concat(server_complaints, '\n'))
  check(vim.v.errmsg == '', 'no error reported by Neovim', vim.v.errmsg)
end

local ok, err = xpcall(run, debug.traceback)
if not ok then
  failures = failures + 1
  say('  FAIL the script raised an error:\n' .. tostring(err))
end
say(failures == 0 and 'e2e: all checks passed' or string.format('e2e: %d check(s) failed', failures))
if failures == 0 then
  vim.cmd('qa!')
else
  vim.cmd('cquit 1')
end
