;;; e2e.el --- eglot in batch against errknow-ls: diagnostics, code actions  -*- lexical-binding: t; -*-
;; Run as: emacs -Q --batch -l e2e.el; reads ERRKNOW_EMACS_SNIPPET, ERRKNOW_E2E_FILE, ERRKNOW_E2E_OUT.

(require 'package)
(add-to-list 'package-directory-list "/usr/share/emacs/site-lisp/elpa")
(package-initialize)
(require 'json)
(load (getenv "ERRKNOW_EMACS_SNIPPET") nil t)

(defvar errknow-seen nil "What the scenario saw, an alist written as JSON.")

(defun errknow-save ()
  (with-temp-file (getenv "ERRKNOW_E2E_OUT")
    (insert (json-encode errknow-seen))))

(defun errknow-wait (seconds what condition)
  "Let the process output in until CONDITION holds; fail naming WHAT after SECONDS."
  (let ((deadline (+ (float-time) seconds)))
    (while (not (funcall condition))
      (when (> (float-time) deadline)
        (errknow-save)
        (error "Timed out after %s s waiting for %s" seconds what))
      (accept-process-output nil 0.05))))

(defun errknow-diagnostics ()
  (flymake-start)
  (mapcar (lambda (d)
            (list (cons 'line (line-number-at-pos (flymake-diagnostic-beg d)))
                  (cons 'type (format "%s" (flymake-diagnostic-type d)))
                  (cons 'text (flymake-diagnostic-text d))))
          (flymake-diagnostics)))

(condition-case err
    (progn
      (find-file (getenv "ERRKNOW_E2E_FILE"))
      (eglot-ensure)
      (run-hooks 'post-command-hook)    ; eglot-ensure connects after the next command
      (errknow-wait 30 "eglot to connect" #'eglot-current-server)
      (push (cons 'server (process-command (jsonrpc--process (eglot-current-server)))) errknow-seen)
      (errknow-wait 30 "diagnostics" (lambda () (errknow-diagnostics)))
      (push (cons 'diagnostics (errknow-diagnostics)) errknow-seen)
      (goto-char (point-min))
      (forward-line 17)
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
            errknow-seen)
      (errknow-save)
      (kill-emacs 0))
  (error
   (push (cons 'error (error-message-string err)) errknow-seen)
   (errknow-save)
   (kill-emacs 2)))
