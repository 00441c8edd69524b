;;; e2e.el --- eglot in batch against errknow-ls: diagnostics, hover, code actions  -*- lexical-binding: t; -*-
;; Run as: emacs -Q --batch -l e2e.el; reads ERRKNOW_EMACS_SNIPPET, ERRKNOW_E2E_FILE, ERRKNOW_E2E_OUT.

(load (expand-file-name "harness.el" (file-name-directory load-file-name)) nil t)
(require 'ffap)

(defun errknow-visible (text)
  "TEXT as the user sees it: without the parts made invisible (markdown-mode's markup)."
  (with-temp-buffer
    (insert text)
    (let (shown)
      (goto-char (point-min))
      (while (not (eobp))
        (let ((next (next-single-char-property-change (point) 'invisible)))
          (unless (get-char-property (point) 'invisible)
            (push (buffer-substring-no-properties (point) next) shown))
          (goto-char next)))
      (apply #'concat (nreverse shown)))))

(errknow-scenario
      (find-file (getenv "ERRKNOW_E2E_FILE"))
      (errknow-connect)
      (push (cons 'server (process-command (jsonrpc--process (eglot-current-server)))) errknow-seen)
      (errknow-wait 30 "diagnostics" (lambda () (errknow-diagnostics)))
      (push (cons 'diagnostics (errknow-diagnostics)) errknow-seen)
      (goto-char (point-min))
      (forward-line 17)
      (back-to-indentation)
      ;; Hover on `loss.backward()` as eldoc shows it. Its link opens the whole explanation: in plain
      ;; text (no markdown-mode) M-x ffap on the link; rendered by markdown-mode, mouse-2 on it.
      (let ((source (current-buffer))
            hover)
        (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover info)))
        (errknow-wait 30 "the hover" (lambda () hover))
        (push (cons 'hover (substring-no-properties hover)) errknow-seen)
        (push (cons 'hover_shown (errknow-visible hover)) errknow-seen)
        (with-temp-buffer
          (insert hover)
          (goto-char (point-min))
          (if (fboundp 'gfm-view-mode)
              (progn
                (search-forward "errknow-ls explain")
                (let ((follow (lookup-key (get-text-property (point) 'keymap) [mouse-2])))
                  (push (cons 'hover_link_command follow) errknow-seen)
                  (funcall follow nil)))
            (search-forward "file:")
            (let ((link (ffap-guesser)))
              (push (cons 'hover_link link) errknow-seen)
              (find-file-at-point link)))
          (push (cons 'hover_link_opened (buffer-file-name (window-buffer))) errknow-seen)
          (push (cons 'hover_link_text (with-current-buffer (window-buffer) (buffer-string))) errknow-seen))
        (switch-to-buffer source))
      (let* ((actions (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" nil))
             (preferred (seq-find (lambda (a) (eq (plist-get a :isPreferred) t)) actions)))
        (push (cons 'actions (mapcar (lambda (a) (plist-get a :title)) actions)) errknow-seen)
        (when preferred
          (eglot--apply-workspace-edit (plist-get preferred :edit))
          (save-buffer)
          (eglot--signal-textDocument/didChange)
          (push (cons 'fixed (buffer-substring-no-properties (point-min) (point-max))) errknow-seen)
          (errknow-wait 30 "the diagnostics to clear" (lambda () (null (errknow-diagnostics))))))
      (push (cons 'encoding (plist-get (eglot--capabilities (eglot-current-server)) :positionEncoding))
            errknow-seen))
