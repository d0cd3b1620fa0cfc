--- crdls for Neovim 0.11+: put this directory's parent on 'runtimepath' (or copy this file to
--- `~/.config/nvim/lsp/crdls.lua`), then call `vim.lsp.enable('crdls')`.
---
--- Settings are read from `crdls.toml` at the workspace root first, then `init_options`, then the
--- `crdls` section of `settings` (answered for `workspace/configuration`), each layer overriding only
--- the keys it sets. Both are left empty here so that a project's `crdls.toml` is not overridden;
--- set keys per machine with `vim.lsp.config('crdls', { settings = { crdls = { strict = true } } })`.
---
--- Keys (camelCase):
---   crdPaths   string[]  extra CRD files, directories, globs, chart archives (.tgz) or URLs to index
---                        (URLs are fetched once into the cache; '#sha256=HEX' pins one)
---   cluster    boolean|table  also read the cluster's CRDs: true, or { context = 'NAME', kubeconfig = 'PATH' }
---   strict     boolean   unknown fields are errors instead of warnings
---   severity   table     per-code level: { ['schema/unknown-field'] = 'off', ['resource/no-crd'] = 'hint' }
---   debounceMs integer   wait after the last keystroke before checking
---   inlayHints boolean   show the defaults the API server will write
---   oldObject  string    git revision to check edits as updates of ('HEAD'), or 'off'
---
--- Workspace trust: crdls does not use what a project's crdls.toml asks for that would run a program,
--- read a credential or touch the network (the cluster and its kubeconfig, URLs, paths outside the
--- project, git revisions; git itself does not run) until the client says the user trusts the
--- workspace, with the initialization option `trustedWorkspace = true`. Settings in `settings` and
--- `init_options` are yours and always apply. See docs/src/editors/neovim.md ("Workspace trust") for a per-project
--- way with Neovim's own trust list (`:trust`).
---@type vim.lsp.Config
return {
  cmd = { 'crdls' },
  filetypes = { 'yaml' },
  root_markers = { 'crdls.toml', '.git' },
  -- The workspace is the nearest directory holding one of the root markers, else the file's own
  -- directory: with root markers alone, a file outside any project would start crdls without a
  -- root, and the CRDs beside it would not be found. The markers are read from the resolved
  -- configuration, so `vim.lsp.config('crdls', { root_markers = { ... } })` still applies.
  root_dir = function(bufnr, on_dir)
    local name = vim.api.nvim_buf_get_name(bufnr)
    local root = vim.fs.root(bufnr, vim.lsp.config.crdls.root_markers)
    -- An unnamed buffer is looked up from the current directory, as vim.fs.root does.
    on_dir(root or (name ~= '' and vim.fs.dirname(name)) or vim.fn.getcwd())
  end,
  -- :CrdlsRefreshSources reads the chart archives and fetches the URLs and the cluster again.
  on_attach = function(client, bufnr)
    vim.api.nvim_buf_create_user_command(bufnr, 'CrdlsRefreshSources', function()
      client:exec_cmd({ title = 'Refresh CRD sources', command = 'crdls.refreshCrdSources' }, { bufnr = bufnr })
    end, { desc = 'crdls: read chart archives, fetch CRD URLs and the cluster again' })
  end,
  -- An empty table would be sent as a JSON array: vim.empty_dict() is sent as `{}`.
  settings = { crdls = vim.empty_dict() },
  init_options = vim.empty_dict(),
}
